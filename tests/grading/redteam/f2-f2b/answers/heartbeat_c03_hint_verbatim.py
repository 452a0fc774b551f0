# correct | - | hint 3 word for word
def extend_lease(conn, job, lease_s):
    return conn.execute("UPDATE jobs SET run_at = now() + make_interval(secs => %s) WHERE id = %s AND lease_token = %s", [lease_s, job.id, job.lease_token]).rowcount == 1
