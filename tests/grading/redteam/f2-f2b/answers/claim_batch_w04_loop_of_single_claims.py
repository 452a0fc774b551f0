# wrong | lease-what-you-return | limit single-row claims in a loop: not one statement (another worker's claim falls between them)
def claim_batch(conn, limit, lease_s):
    got = []
    for _ in range(limit):
        row = conn.execute("""
            UPDATE jobs SET locked_until = now() + make_interval(secs => %s), attempts = attempts + 1
            WHERE id = (SELECT id FROM jobs
                        WHERE run_at <= now() AND (locked_until IS NULL OR locked_until < now())
                        ORDER BY run_at LIMIT 1 FOR UPDATE SKIP LOCKED)
            RETURNING id, type, payload""", [lease_s]).fetchone()
        if row is None:
            break
        got.append(row)
    return got
