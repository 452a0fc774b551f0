# expect: correct
# rule: correct in behaviour (a transaction: lock our row by token, then update it)
def extend_lease(conn, job, lease_s):
    """Push the end of our lease on `job` to lease_s seconds from now; False if the lease is not ours."""
    with conn.transaction():
        ours = conn.execute("SELECT id FROM jobs WHERE id = %s AND lease_token = %s FOR NO KEY UPDATE",
                            [job.id, job.lease_token]).fetchone()
        if not ours:
            return False
        conn.execute("UPDATE jobs SET run_at = now() + make_interval(secs => %s) WHERE id = %s", [lease_s, job.id])
        return True
