# expect: correct
# rule: correct: DELETE ... RETURNING id, the row (or None)
def ack(conn, job_id, lease_token):
    return conn.execute("DELETE FROM jobs WHERE id = %(id)s AND lease_token = %(token)s RETURNING id",
                        {"id": job_id, "token": lease_token}).fetchone()
