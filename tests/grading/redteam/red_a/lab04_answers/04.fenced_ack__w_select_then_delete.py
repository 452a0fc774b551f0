# expect: wrong
# rule: fenced: the token read, then a DELETE by id (another worker claims between the two)
def ack(conn, job_id, lease_token):
    row = conn.execute("SELECT lease_token FROM jobs WHERE id = %s", [job_id]).fetchone()
    if row is None or row[0] != lease_token:
        return False
    conn.execute("DELETE FROM jobs WHERE id = %s", [job_id])
    return True
