# expect: wrong
# rule: due-only (run_at < now(): a job due exactly now is not ready)
def claim(conn, lease_s):
    """Lease the oldest ready job for lease_s seconds; return (id, type, payload), or None."""
    return conn.execute("""
        UPDATE jobs SET locked_until = now() + make_interval(secs => %s), attempts = attempts + 1
        WHERE id = (SELECT id FROM jobs WHERE run_at < now() AND (locked_until IS NULL OR locked_until < now())
                    ORDER BY run_at LIMIT 1 FOR UPDATE SKIP LOCKED)
        RETURNING id, type, payload""", [lease_s]).fetchone()
