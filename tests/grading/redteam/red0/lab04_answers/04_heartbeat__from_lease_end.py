# expect: wrong
# rule: from-now (adds lease_s to the end of the current lease)
def extend_lease(conn, job, lease_s):
    """Push the end of our lease on `job` to lease_s seconds from now; False if the lease is not ours."""
    return conn.execute("UPDATE jobs SET run_at = run_at + make_interval(secs => %s) WHERE id = %s AND lease_token = %s",
                        [lease_s, job.id, job.lease_token]).rowcount == 1
