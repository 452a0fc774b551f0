# exercise: 04.fenced_ack
# kind: wrong
# rule: says-so: reports true when the job is already gone (an 'idempotent' ack), though it deleted nothing
def ack(conn, job_id, lease_token):
    if conn.execute("DELETE FROM jobs WHERE id = %s AND lease_token = %s", [job_id, lease_token]).rowcount:
        return True
    still_there = conn.execute("SELECT 1 FROM jobs WHERE id = %s", [job_id]).fetchone()
    return still_there is None   # already acked: that is success too
