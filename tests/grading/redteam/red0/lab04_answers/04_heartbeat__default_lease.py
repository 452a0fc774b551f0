# expect: wrong
# rule: from-now (ignores lease_s: always the course's default 30 s)
def extend_lease(conn, job, lease_s):
    """Push the end of our lease on `job` to lease_s seconds from now; False if the lease is not ours."""
    return conn.execute("UPDATE jobs SET run_at = now() + make_interval(secs => %s) WHERE id = %s AND lease_token = %s",
                        [queue.DEFAULT_LEASE_S, job.id, job.lease_token]).rowcount == 1
