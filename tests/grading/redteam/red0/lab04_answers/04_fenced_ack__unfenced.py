# expect: wrong
# rule: fenced (DELETE by id only)
def ack(conn, job_id, lease_token):
    """Delete the finished job if `lease_token` is still its lease token; True if it was deleted."""
    return conn.execute("DELETE FROM jobs WHERE id = %s", [job_id]).rowcount == 1
