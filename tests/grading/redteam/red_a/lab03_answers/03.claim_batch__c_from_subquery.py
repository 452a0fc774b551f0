# expect: correct
# rule: correct: UPDATE ... FROM a derived table, rows sorted oldest-first in Python, tuples rebuilt
def claim_batch(conn, limit, lease_s):
    rows = conn.execute("""
        UPDATE jobs AS j
        SET attempts = j.attempts + 1, locked_until = now() + %(s)s * interval '1 second'
        FROM (SELECT id FROM jobs
              WHERE run_at <= now() AND coalesce(locked_until, '-infinity') < now()
              ORDER BY run_at LIMIT %(n)s FOR UPDATE SKIP LOCKED) AS picked
        WHERE j.id = picked.id
        RETURNING j.id, j.type, j.payload, j.run_at""", {"s": lease_s, "n": limit}).fetchall()
    return [(job_id, job_type, payload) for job_id, job_type, payload, _ in sorted(rows, key=lambda r: r[3])]
