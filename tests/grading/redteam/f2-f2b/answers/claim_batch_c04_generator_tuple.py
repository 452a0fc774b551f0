# correct | - | CTE with RETURNING into a final SELECT ordered by run_at, rows built with a comprehension
def claim_batch(conn, limit, lease_s):
    sql = """
        WITH next_jobs AS MATERIALIZED (
            SELECT id FROM jobs
            WHERE run_at <= now()
              AND (locked_until IS NULL OR locked_until < now())
            ORDER BY run_at
            LIMIT %(limit)s
            FOR UPDATE SKIP LOCKED
        ), taken AS (
            UPDATE jobs SET attempts = attempts + 1,
                            locked_until = now() + make_interval(secs => %(lease_s)s)
            WHERE id IN (SELECT id FROM next_jobs)
            RETURNING id, type, payload, run_at
        )
        SELECT id, type, payload FROM taken ORDER BY run_at"""
    return [(i, t, p) for i, t, p in conn.execute(sql, {"limit": limit, "lease_s": lease_s})]
