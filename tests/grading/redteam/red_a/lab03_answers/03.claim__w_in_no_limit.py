# expect: wrong
# rule: only-that-job: IN without LIMIT leases every ready job, returns one
def claim(conn, lease_s):
    return conn.execute("""UPDATE jobs SET locked_until = now() + make_interval(secs => %s), attempts = attempts + 1 WHERE id IN (SELECT id FROM jobs WHERE run_at <= now() AND (locked_until IS NULL OR locked_until < now()) ORDER BY run_at FOR UPDATE SKIP LOCKED) RETURNING id, type, payload""", [lease_s]).fetchone()
