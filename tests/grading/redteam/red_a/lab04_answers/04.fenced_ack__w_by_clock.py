# expect: wrong
# rule: fenced: by the clock (the lease has not run out), not the token
def ack(conn, job_id, lease_token):
    return conn.execute("DELETE FROM jobs WHERE id = %s AND run_at > now()", [job_id]).rowcount > 0
