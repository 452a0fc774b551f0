# expect: wrong
# rule: skip-leased: a leased job is taken again
def claim(conn, lease_s):
    return conn.execute("""UPDATE jobs SET locked_until = now() + make_interval(secs => %s), attempts = attempts + 1 WHERE id = (SELECT id FROM jobs WHERE run_at <= now() ORDER BY run_at LIMIT 1 FOR UPDATE SKIP LOCKED) RETURNING id, type, payload""", [lease_s]).fetchone()
