# expect: correct
# rule: correct: a CTE, UPDATE ... FROM, coalesce on locked_until, interval arithmetic
def claim(conn, lease_s):
    row = conn.execute("""
        WITH next AS (
            SELECT id FROM jobs
            WHERE run_at <= now() AND coalesce(locked_until, '-infinity') < now()
            ORDER BY run_at
            LIMIT 1
            FOR UPDATE SKIP LOCKED)
        UPDATE jobs SET attempts = jobs.attempts + 1,
                        locked_until = now() + %(lease)s * interval '1 second'
        FROM next WHERE jobs.id = next.id
        RETURNING jobs.id, jobs.type, jobs.payload""", {"lease": lease_s}).fetchone()
    return None if row is None else (row[0], row[1], row[2])
