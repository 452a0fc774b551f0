# expect: wrong
# rule: fenced (by the clock: run_at > now(), the lease not yet over)
def ack(conn, job_id, lease_token):
    """Delete the finished job if `lease_token` is still its lease token; True if it was deleted."""
    return conn.execute("DELETE FROM jobs WHERE id = %s AND run_at > now()", [job_id]).rowcount == 1
