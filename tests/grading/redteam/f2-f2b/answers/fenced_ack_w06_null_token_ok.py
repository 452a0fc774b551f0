# wrong | fenced | token matches OR is NULL: deletes a job handed back for a retry
def ack(conn, job_id, lease_token):
    return conn.execute("DELETE FROM jobs WHERE id = %s AND (lease_token = %s OR lease_token IS NULL)", [job_id, lease_token]).rowcount == 1
