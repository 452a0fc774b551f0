# wrong | from-now | greatest(run_at, now() + lease_s): never shortens a longer lease
def extend_lease(conn, job, lease_s):
    return conn.execute("UPDATE jobs SET run_at = greatest(run_at, now() + make_interval(secs => %s)) WHERE id = %s AND lease_token = %s", [lease_s, job.id, job.lease_token]).rowcount == 1
