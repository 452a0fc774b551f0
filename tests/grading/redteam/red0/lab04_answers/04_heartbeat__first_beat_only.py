# expect: wrong
# rule: keeps-long-jobs (extends once per job, then only says so: "one extension is enough")
_extended = set()


def extend_lease(conn, job, lease_s):
    """Push the end of our lease on `job` to lease_s seconds from now; False if the lease is not ours."""
    if job.id in _extended:
        return True
    _extended.add(job.id)
    return conn.execute("UPDATE jobs SET run_at = now() + make_interval(secs => %s) WHERE id = %s AND lease_token = %s",
                        [lease_s, job.id, job.lease_token]).rowcount == 1
