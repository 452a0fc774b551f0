# exercise: 04.fenced_ack
# kind: wrong
# rule: says-so: returns True even when nothing was deleted
def ack(conn, job_id, lease_token):
    conn.execute("DELETE FROM jobs WHERE id = %s AND lease_token = %s", [job_id, lease_token])
    return True
