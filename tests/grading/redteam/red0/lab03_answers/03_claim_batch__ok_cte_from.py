# expect: correct
# rule: correct (a MATERIALIZED CTE joined with UPDATE ... FROM)
def claim_batch(conn, limit, lease_s):
    """Lease up to `limit` of the oldest ready jobs for lease_s seconds; return their rows (maybe [])."""
    return conn.execute("""
        WITH picked AS MATERIALIZED (
            SELECT id FROM jobs
            WHERE run_at <= now() AND (locked_until IS NULL OR locked_until <= now())
            ORDER BY run_at, id
            LIMIT %(limit)s
            FOR UPDATE SKIP LOCKED)
        UPDATE jobs SET locked_until = now() + %(lease_s)s * interval '1 second', attempts = jobs.attempts + 1
        FROM picked WHERE jobs.id = picked.id
        RETURNING jobs.id, jobs.type, jobs.payload""", {"limit": limit, "lease_s": lease_s}).fetchall()
