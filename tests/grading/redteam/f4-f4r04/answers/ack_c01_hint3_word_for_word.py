# exercise: 04.fenced_ack
# kind: correct
# rule: correct (hint 3, word for word)
def ack(conn, job_id, lease_token):
    """Delete the finished job if `lease_token` is still its lease token; True if it was deleted."""
    return conn.execute("DELETE FROM jobs WHERE id = %s AND lease_token = %s", [job_id, lease_token]).rowcount == 1
