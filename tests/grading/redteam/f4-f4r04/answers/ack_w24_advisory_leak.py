# exercise: 04.fenced_ack
# kind: wrong
# rule: lock held too long: takes a session advisory lock on the job id and never releases it; the next ack of that job from another session is refused
def ack(conn, job_id, lease_token):
    (mine,) = conn.execute("SELECT pg_try_advisory_lock(%s)", [job_id]).fetchone()
    if not mine:
        return False   # another worker is acking this job right now
    return conn.execute("DELETE FROM jobs WHERE id = %s AND lease_token = %s", [job_id, lease_token]).rowcount == 1
