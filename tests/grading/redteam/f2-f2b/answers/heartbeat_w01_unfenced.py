# wrong | fenced | UPDATE by id only
def extend_lease(conn, job, lease_s):
    return conn.execute("UPDATE jobs SET run_at = now() + make_interval(secs => %s) WHERE id = %s", [lease_s, job.id]).rowcount == 1
