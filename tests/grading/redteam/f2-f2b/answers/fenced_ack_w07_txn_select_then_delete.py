# wrong | fenced | a transaction, SELECT (no FOR UPDATE) then DELETE by id: READ COMMITTED lets a claim in between
def ack(conn, job_id, lease_token):
    with conn.transaction():
        current = conn.execute("SELECT lease_token FROM jobs WHERE id = %s", [job_id]).fetchone()
        if not current or current[0] != lease_token:
            return False
        conn.execute("DELETE FROM jobs WHERE id = %s", [job_id])
    return True
