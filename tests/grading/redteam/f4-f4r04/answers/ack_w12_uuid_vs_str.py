# exercise: 04.fenced_ack
# kind: wrong
# rule: delete: compares the database's UUID with str(token) in Python, never equal
def ack(conn, job_id, lease_token):
    row = conn.execute("SELECT lease_token FROM jobs WHERE id = %s FOR UPDATE", [job_id]).fetchone()
    if row is None or row[0] != str(lease_token):
        return False
    return conn.execute("DELETE FROM jobs WHERE id = %s AND lease_token = %s", [job_id, lease_token]).rowcount == 1
