# expect: correct
# rule: correct (a CTE, UPDATE ... FROM, table aliases, <= for a lease ending now)
def claim(conn, lease_s):
    """Lease the oldest ready job for lease_s seconds; return (id, type, payload), or None."""
    return conn.execute("""
        WITH next AS (
            SELECT j.id FROM jobs AS j
            WHERE j.run_at <= now() AND (j.locked_until IS NULL OR j.locked_until <= now())
            ORDER BY j.run_at, j.id
            LIMIT 1
            FOR UPDATE SKIP LOCKED)
        UPDATE jobs AS t SET locked_until = now() + %s * interval '1 second', attempts = t.attempts + 1
        FROM next WHERE t.id = next.id
        RETURNING t.id, t.type, t.payload""", [lease_s]).fetchone()
