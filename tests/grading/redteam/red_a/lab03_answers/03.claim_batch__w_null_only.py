# expect: wrong
# rule: skip-leased: a job whose lease ran out is never claimed again
def claim_batch(conn, limit, lease_s):
    return conn.execute("""WITH next AS (SELECT id FROM jobs WHERE run_at <= now() AND locked_until IS NULL ORDER BY run_at LIMIT %(limit)s FOR UPDATE SKIP LOCKED) UPDATE jobs SET locked_until = now() + make_interval(secs => %(lease_s)s), attempts = attempts + 1 FROM next WHERE jobs.id = next.id RETURNING jobs.id, jobs.type, jobs.payload""", {"limit": limit, "lease_s": lease_s}).fetchall()
