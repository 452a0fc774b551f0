# exercise: 04.fenced_ack
# kind: wrong
# rule: delete: only jobs of the 'default' queue (works for the demo's jobs only)
def ack(conn, job_id, lease_token):
    cur = conn.execute("DELETE FROM jobs WHERE queue = 'default' AND id = %s AND lease_token = %s",
                       [job_id, lease_token])
    return cur.rowcount == 1
