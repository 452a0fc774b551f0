# expect: wrong
# rule: fenced (reads the token, then updates by id: a claim in between is taken back)
def extend_lease(conn, job, lease_s):
    """Push the end of our lease on `job` to lease_s seconds from now; False if the lease is not ours."""
    row = conn.execute("SELECT lease_token FROM jobs WHERE id = %s", [job.id]).fetchone()
    if row is None or row[0] != job.lease_token:
        return False
    conn.execute("UPDATE jobs SET run_at = now() + make_interval(secs => %s) WHERE id = %s", [lease_s, job.id])
    return True
