# wrong | from-now | run_at = run_at + lease_s: from the end of the current lease
def extend_lease(conn, job, lease_s):
    return conn.execute("UPDATE jobs SET run_at = run_at + make_interval(secs => %s) WHERE id = %s AND lease_token = %s", [lease_s, job.id, job.lease_token]).rowcount == 1
