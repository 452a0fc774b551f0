# expect: wrong
# rule: each-once (SELECT ids FOR UPDATE SKIP LOCKED, then UPDATE by id, on the autocommit connection)
def claim_batch(conn, limit, lease_s):
    """Lease up to `limit` of the oldest ready jobs for lease_s seconds; return their rows (maybe [])."""
    ids = [r[0] for r in conn.execute("""
        SELECT id FROM jobs WHERE run_at <= now() AND (locked_until IS NULL OR locked_until < now())
        ORDER BY run_at LIMIT %s FOR UPDATE SKIP LOCKED""", [limit])]
    if not ids:
        return []
    return conn.execute("""
        UPDATE jobs SET locked_until = now() + make_interval(secs => %s), attempts = attempts + 1
        WHERE id = ANY(%s) RETURNING id, type, payload""", [lease_s, ids]).fetchall()
