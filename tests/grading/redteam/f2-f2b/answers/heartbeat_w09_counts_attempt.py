# wrong | only-run-at | each beat adds one to attempts
def extend_lease(conn, job, lease_s):
    return conn.execute("UPDATE jobs SET run_at = now() + make_interval(secs => %s), attempts = attempts + 1 WHERE id = %s AND lease_token = %s", [lease_s, job.id, job.lease_token]).rowcount == 1
