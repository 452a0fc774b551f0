# expect: wrong
# rule: delete (also demands run_at > now(): a job whose lease ran out, claimed by no one since, is never acked)
def ack(conn, job_id, lease_token):
    """Delete the finished job if `lease_token` is still its lease token; True if it was deleted."""
    return conn.execute("DELETE FROM jobs WHERE id = %s AND lease_token = %s AND run_at > now()",
                        [job_id, lease_token]).rowcount > 0
