# expect: wrong
# rule: says-so (fenced, but always returns True)
def ack(conn, job_id, lease_token):
    """Delete the finished job if `lease_token` is still its lease token; True if it was deleted."""
    conn.execute("DELETE FROM jobs WHERE id = %s AND lease_token = %s", [job_id, lease_token])
    return True
