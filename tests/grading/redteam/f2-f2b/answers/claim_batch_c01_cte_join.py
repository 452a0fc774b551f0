# correct | - | CTE locks up to limit rows, UPDATE ... FROM the CTE, rows sorted newest first in Python (order is free)
def claim_batch(conn, limit, lease_s):
    sql = """
        WITH chosen AS (
            SELECT id FROM jobs
            WHERE run_at <= now() AND (locked_until IS NULL OR locked_until < now())
            ORDER BY run_at
            LIMIT %(n)s
            FOR UPDATE SKIP LOCKED)
        UPDATE jobs j SET locked_until = now() + make_interval(secs => %(s)s), attempts = j.attempts + 1
        FROM chosen c WHERE j.id = c.id
        RETURNING j.id, j.type, j.payload, j.run_at"""
    rows = conn.execute(sql, {"n": limit, "s": lease_s}).fetchall()
    return [tuple(r[:3]) for r in sorted(rows, key=lambda r: r[3], reverse=True)]
