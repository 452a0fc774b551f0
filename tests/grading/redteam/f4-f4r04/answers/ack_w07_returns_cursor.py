# exercise: 04.fenced_ack
# kind: wrong
# rule: says-so: returns the cursor, which is always true
def ack(conn, job_id, lease_token):
    return conn.execute("DELETE FROM jobs WHERE id = %s AND lease_token = %s", [job_id, lease_token])
