# expect: wrong
# rule: oldest-first, at most limit (caps a batch at 5: "nobody claims more than a handful")
def claim_batch(conn, limit, lease_s):
    """Lease up to `limit` of the oldest ready jobs for lease_s seconds; return their rows (maybe [])."""
    return conn.execute("""
        UPDATE jobs SET locked_until = now() + make_interval(secs => %s), attempts = attempts + 1
        WHERE id = ANY(ARRAY(SELECT id FROM jobs WHERE run_at <= now() AND (locked_until IS NULL OR locked_until < now())
                             ORDER BY run_at LIMIT least(%s, 5) FOR UPDATE SKIP LOCKED))
        RETURNING id, type, payload""", [lease_s, limit]).fetchall()
