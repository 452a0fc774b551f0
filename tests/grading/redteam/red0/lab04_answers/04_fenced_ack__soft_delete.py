# expect: wrong
# rule: delete (marks the job done by pushing run_at to infinity instead of deleting it)
def ack(conn, job_id, lease_token):
    """Delete the finished job if `lease_token` is still its lease token; True if it was deleted."""
    return conn.execute("UPDATE jobs SET run_at = 'infinity' WHERE id = %s AND lease_token = %s",
                        [job_id, lease_token]).rowcount == 1
