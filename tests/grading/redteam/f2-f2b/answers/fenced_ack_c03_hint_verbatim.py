# correct | - | hint 3 word for word
def ack(conn, job_id, lease_token):
    return conn.execute("DELETE FROM jobs WHERE id = %s AND lease_token = %s", [job_id, lease_token]).rowcount == 1
