# wrong | fenced | fenced by the clock: run_at > now()
def ack(conn, job_id, lease_token):
    return conn.execute("DELETE FROM jobs WHERE id = %s AND run_at > now()", [job_id]).rowcount == 1
