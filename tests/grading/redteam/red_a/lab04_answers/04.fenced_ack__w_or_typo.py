# expect: wrong
# rule: fenced: OR instead of AND
def ack(conn, job_id, lease_token):
    return conn.execute("DELETE FROM jobs WHERE id = %s OR lease_token = %s", [job_id, lease_token]).rowcount > 0
