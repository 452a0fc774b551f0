# expect: wrong
# rule: each-once: no row lock in the sub-select
def claim(conn, lease_s):
    return conn.execute("""UPDATE jobs SET locked_until = now() + make_interval(secs => %s), attempts = attempts + 1 WHERE id = (SELECT id FROM jobs WHERE run_at <= now() AND (locked_until IS NULL OR locked_until < now()) ORDER BY run_at LIMIT 1) RETURNING id, type, payload""", [lease_s]).fetchone()
