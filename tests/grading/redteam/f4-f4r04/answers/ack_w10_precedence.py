# exercise: 04.fenced_ack
# kind: wrong
# rule: delete that job only: AND/OR precedence deletes every unclaimed job
def ack(conn, job_id, lease_token):
    cur = conn.execute("DELETE FROM jobs WHERE id = %s AND lease_token = %s OR lease_token IS NULL",
                       [job_id, lease_token])
    return cur.rowcount >= 1
