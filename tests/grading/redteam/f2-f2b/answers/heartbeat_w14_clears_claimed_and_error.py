# wrong | only-run-at | also clears last_error
def extend_lease(conn, job, lease_s):
    return conn.execute("UPDATE jobs SET run_at = now() + make_interval(secs => %s), last_error = NULL WHERE id = %s AND lease_token = %s", [lease_s, job.id, job.lease_token]).rowcount == 1
