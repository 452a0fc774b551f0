# expect: wrong
# rule: fenced (by the clock: extends while run_at > now(), whoever holds the lease)
def extend_lease(conn, job, lease_s):
    """Push the end of our lease on `job` to lease_s seconds from now; False if the lease is not ours."""
    return conn.execute("UPDATE jobs SET run_at = now() + make_interval(secs => %s) WHERE id = %s AND run_at > now()",
                        [lease_s, job.id]).rowcount == 1
