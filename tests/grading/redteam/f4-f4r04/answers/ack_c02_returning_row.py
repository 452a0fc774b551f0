# exercise: 04.fenced_ack
# kind: correct
# rule: correct (RETURNING, returns the row or None)
def ack(conn, job_id, lease_token):
    return conn.execute(
        "DELETE FROM jobs WHERE lease_token = %(token)s AND id = %(id)s RETURNING *",
        {"id": job_id, "token": lease_token},
    ).fetchone()
