# expect: wrong
# rule: lease-what-you-return: one statement (a loop of single claims: `limit` statements)
def claim_batch(conn, limit, lease_s):
    """Lease up to `limit` of the oldest ready jobs for lease_s seconds; return their rows (maybe [])."""
    out = []
    for _ in range(limit):
        row = conn.execute("""
            UPDATE jobs SET locked_until = now() + make_interval(secs => %s), attempts = attempts + 1
            WHERE id = (SELECT id FROM jobs WHERE run_at <= now() AND (locked_until IS NULL OR locked_until < now())
                        ORDER BY run_at LIMIT 1 FOR UPDATE SKIP LOCKED)
            RETURNING id, type, payload""", [lease_s]).fetchone()
        if row is None:
            break
        out.append(row)
    return out
