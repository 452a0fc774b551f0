# exercise: 04.fenced_ack
# kind: wrong
# rule: says-so: rowcount == 0 (inverted)
def ack(conn, job_id, lease_token):
    cur = conn.execute("DELETE FROM jobs WHERE id = %s AND lease_token = %s", [job_id, lease_token])
    return cur.rowcount == 0
