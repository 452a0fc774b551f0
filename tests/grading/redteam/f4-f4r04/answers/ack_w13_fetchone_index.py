# exercise: 04.fenced_ack
# kind: wrong
# rule: says-so: raises TypeError (None[0]) instead of returning false
def ack(conn, job_id, lease_token):
    cur = conn.execute("DELETE FROM jobs WHERE id = %s AND lease_token = %s RETURNING id", [job_id, lease_token])
    return cur.fetchone()[0] == job_id
