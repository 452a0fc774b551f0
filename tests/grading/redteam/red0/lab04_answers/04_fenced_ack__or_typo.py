# expect: wrong
# rule: delete/fenced (OR instead of AND)
def ack(conn, job_id, lease_token):
    """Delete the finished job if `lease_token` is still its lease token; True if it was deleted."""
    return conn.execute("DELETE FROM jobs WHERE id = %s OR lease_token = %s", [job_id, lease_token]).rowcount > 0
