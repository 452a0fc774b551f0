# wrong | fenced | fenced by the clock: run_at > now()
def extend_lease(conn, job, lease_s):
    return conn.execute("UPDATE jobs SET run_at = now() + make_interval(secs => %s) WHERE id = %s AND run_at > now()", [lease_s, job.id]).rowcount == 1
