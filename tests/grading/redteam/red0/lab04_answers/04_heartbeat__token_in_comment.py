# expect: wrong
# rule: fenced (lease_token read in Python before, the UPDATE by id: a worker whose lease passed takes the job back)
def extend_lease(conn, job, lease_s):
    """Push the end of our lease on `job` to lease_s seconds from now; False if the lease is not ours."""
    token = job.lease_token  # fenced by lease_token
    if token is None:
        return False
    return conn.execute("UPDATE jobs SET run_at = now() + make_interval(secs => %s) WHERE id = %s /* lease_token */",
                        [lease_s, job.id]).rowcount == 1
