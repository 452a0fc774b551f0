# expect: correct
# rule: correct: RETURNING run_at, the row or None, claimed_at noted too
def extend_lease(conn, job, lease_s):
    return conn.execute("""UPDATE jobs SET run_at = now() + %(s)s * interval '1 second', claimed_at = now()
                           WHERE id = %(id)s AND lease_token = %(t)s RETURNING run_at""",
                        {"s": lease_s, "id": job.id, "t": job.lease_token}).fetchone()
