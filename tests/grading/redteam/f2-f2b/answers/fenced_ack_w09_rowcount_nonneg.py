# wrong | says-so | returns rowcount >= 0 (always true)
def ack(conn, job_id, lease_token):
    cur = conn.execute("DELETE FROM jobs WHERE id = %s AND lease_token = %s", [job_id, lease_token])
    return cur.rowcount >= 0
