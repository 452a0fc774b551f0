# exercise: 04.fenced_ack
# kind: wrong
# rule: fenced: the lesson's plain DELETE by id, lease_token ignored
def ack(conn, job_id, lease_token):
    """Delete the finished job."""
    return conn.execute("DELETE FROM jobs WHERE id = %s", [job_id]).rowcount == 1
