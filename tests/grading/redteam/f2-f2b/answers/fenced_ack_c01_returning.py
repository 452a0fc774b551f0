# correct | - | DELETE ... RETURNING id; true if a row came back
def ack(conn, job_id, lease_token):
    return conn.execute("DELETE FROM jobs WHERE id = %s AND lease_token = %s RETURNING id", [job_id, lease_token]).fetchone() is not None
