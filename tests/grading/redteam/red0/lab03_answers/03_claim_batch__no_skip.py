# expect: wrong
# rule: no-wait (FOR UPDATE, no SKIP LOCKED)
def claim_batch(conn, limit, lease_s):
    """Lease up to `limit` of the oldest ready jobs for lease_s seconds; return their rows (maybe [])."""
    return conn.execute("""
        UPDATE jobs SET locked_until = now() + make_interval(secs => %(lease_s)s), attempts = attempts + 1
        WHERE id = ANY(ARRAY(SELECT id FROM jobs WHERE run_at <= now() AND (locked_until IS NULL OR locked_until < now()) ORDER BY run_at LIMIT %(limit)s FOR UPDATE))
        RETURNING id, type, payload""", {"limit": limit, "lease_s": lease_s}).fetchall()
