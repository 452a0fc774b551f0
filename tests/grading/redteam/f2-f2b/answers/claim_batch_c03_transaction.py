# correct | - | a transaction: lock up to limit rows with SKIP LOCKED, then UPDATE them by an id array
def claim_batch(conn, limit, lease_s):
    with conn.transaction():
        ids = [r[0] for r in conn.execute("""
            SELECT id FROM jobs
            WHERE run_at <= now() AND coalesce(locked_until < now(), true)
            ORDER BY run_at LIMIT %s FOR UPDATE SKIP LOCKED""", [limit])]
        if not ids:
            return []
        rows = conn.execute("""
            UPDATE jobs SET attempts = attempts + 1, locked_until = now() + %s * interval '1 second'
            WHERE id = ANY(%s) RETURNING id, type, payload""", [lease_s, ids]).fetchall()
    return list(rows)
