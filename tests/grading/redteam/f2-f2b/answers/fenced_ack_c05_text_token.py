# correct | - | token compared as text, returns the deleted row itself (or None)
def ack(conn, job_id, lease_token):
    with conn.cursor() as cur:
        cur.execute("DELETE FROM jobs WHERE id = %s AND lease_token::text = %s RETURNING *", [job_id, str(lease_token)])
        return cur.fetchone()
