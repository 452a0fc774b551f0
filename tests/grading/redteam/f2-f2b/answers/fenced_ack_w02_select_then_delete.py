# wrong | fenced | SELECT the token, compare in Python, then DELETE by id: a claim between the two is deleted
def ack(conn, job_id, lease_token):
    row = conn.execute("SELECT lease_token FROM jobs WHERE id = %s", [job_id]).fetchone()
    if row is None or row[0] != lease_token:
        return False
    return conn.execute("DELETE FROM jobs WHERE id = %s", [job_id]).rowcount == 1
