# expect: correct
# rule: correct in behaviour (SELECT ... FOR UPDATE SKIP LOCKED then UPDATE, inside one transaction; tuples)
def claim_batch(conn, limit, lease_s):
    """Lease up to `limit` of the oldest ready jobs for lease_s seconds; return their rows (maybe [])."""
    with conn.transaction():
        picked = conn.execute("""
            SELECT id, type, payload FROM jobs
            WHERE run_at <= now() AND (locked_until IS NULL OR locked_until < now())
            ORDER BY run_at LIMIT %s FOR UPDATE SKIP LOCKED""", [limit]).fetchall()
        if picked:
            conn.execute("UPDATE jobs SET locked_until = now() + make_interval(secs => %s), attempts = attempts + 1 "
                         "WHERE id = ANY(%s)", [lease_s, [p[0] for p in picked]])
    return [tuple(p) for p in picked]
