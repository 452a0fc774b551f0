# expect: wrong
# rule: fenced: a job handed back (token cleared) is deleted too
def ack(conn, job_id, lease_token):
    return conn.execute("DELETE FROM jobs WHERE id = %s AND (lease_token = %s OR lease_token IS NULL)",
                        [job_id, lease_token]).rowcount == 1
