# wrong | lease | adversarial: remembers the first lease_s it was given
_LEASE = []

def claim(conn, lease_s):
    if not _LEASE:
        _LEASE.append(lease_s)
    return conn.execute("""
        UPDATE jobs SET locked_until = now() + make_interval(secs => %s), attempts = attempts + 1
        WHERE id = (SELECT id FROM jobs
                    WHERE run_at <= now() AND (locked_until IS NULL OR locked_until < now())
                    ORDER BY run_at LIMIT 1 FOR UPDATE SKIP LOCKED)
        RETURNING id, type, payload""", [_LEASE[0]]).fetchone()
