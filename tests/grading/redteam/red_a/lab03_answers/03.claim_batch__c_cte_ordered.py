# expect: correct
# rule: correct: two CTEs (pick, then claimed), the final SELECT ordered by run_at
def claim_batch(conn, limit, lease_s):
    cursor = conn.execute("""
        WITH pick AS (
            SELECT id FROM jobs
            WHERE run_at <= now() AND (locked_until IS NULL OR locked_until < now())
            ORDER BY run_at, id
            LIMIT %(limit)s
            FOR UPDATE SKIP LOCKED
        ), claimed AS (
            UPDATE jobs SET locked_until = now() + make_interval(secs => %(lease_s)s), attempts = attempts + 1
            WHERE id IN (SELECT id FROM pick)
            RETURNING id, type, payload, run_at
        )
        SELECT id, type, payload FROM claimed ORDER BY run_at, id""", {"limit": limit, "lease_s": lease_s})
    return [tuple(row) for row in cursor]
