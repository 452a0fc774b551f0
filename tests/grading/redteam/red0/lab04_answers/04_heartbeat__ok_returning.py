# expect: correct
# rule: correct (RETURNING the new end, interval arithmetic, named parameters)
def extend_lease(conn, job, lease_s):
    """Push the end of our lease on `job` to lease_s seconds from now; False if the lease is not ours."""
    row = conn.execute("""
        UPDATE jobs SET run_at = now() + %(s)s * interval '1 second'
        WHERE id = %(id)s AND lease_token = %(token)s
        RETURNING run_at""", {"s": lease_s, "id": job.id, "token": job.lease_token}).fetchone()
    return row is not None
