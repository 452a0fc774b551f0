# expect: wrong
# rule: lease: the lease computed from lease_s rounded down to whole seconds in Python
def claim(conn, lease_s):
    return conn.execute("""UPDATE jobs SET locked_until = now() + %s * interval '1 second', attempts = attempts + 1
        WHERE id = (SELECT id FROM jobs WHERE run_at <= now() AND (locked_until IS NULL OR locked_until < now())
                    ORDER BY run_at LIMIT 1 FOR UPDATE SKIP LOCKED)
        RETURNING id, type, payload""", [int(lease_s)]).fetchone()
