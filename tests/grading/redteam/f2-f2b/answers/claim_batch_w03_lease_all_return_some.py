# wrong | lease-what-you-return | leases every ready job, returns the first `limit`
def claim_batch(conn, limit, lease_s):
    rows = conn.execute("""
        UPDATE jobs SET locked_until = now() + make_interval(secs => %s), attempts = attempts + 1
        WHERE id = ANY(ARRAY(SELECT id FROM jobs
                             WHERE run_at <= now() AND (locked_until IS NULL OR locked_until < now())
                             ORDER BY run_at FOR UPDATE SKIP LOCKED))
        RETURNING id, type, payload, run_at""", [lease_s]).fetchall()
    rows.sort(key=lambda r: r[3])
    return [(r[0], r[1], r[2]) for r in rows[:limit]]
