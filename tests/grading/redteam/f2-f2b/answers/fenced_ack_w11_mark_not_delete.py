# wrong | delete | marks the job done by clearing its token and pushing run_at to infinity instead of deleting it
def ack(conn, job_id, lease_token):
    return conn.execute("UPDATE jobs SET lease_token = NULL, run_at = 'infinity' WHERE id = %s AND lease_token = %s", [job_id, lease_token]).rowcount == 1
