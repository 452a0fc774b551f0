# wrong | says-so | fenced DELETE, but always returns True
def ack(conn, job_id, lease_token):
    conn.execute("DELETE FROM jobs WHERE id = %s AND lease_token = %s", [job_id, lease_token])
    return True
