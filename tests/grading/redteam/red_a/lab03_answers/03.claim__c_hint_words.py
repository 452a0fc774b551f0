# expect: correct
# rule: correct: the statement's words (NOT (locked_until >= now()) form), tuple() of the row
CLAIM = """
UPDATE jobs
SET locked_until = now() + make_interval(secs => %(lease_s)s),
    attempts = attempts + 1
WHERE id = (
    SELECT id FROM jobs
    WHERE run_at <= now()
      AND (locked_until IS NULL OR NOT locked_until >= now())
    ORDER BY run_at, id
    LIMIT 1
    FOR UPDATE SKIP LOCKED)
RETURNING id, type, payload"""

def claim(conn, lease_s):
    cur = conn.execute(CLAIM, {"lease_s": float(lease_s)})
    row = cur.fetchone()
    if row:
        return tuple(row)
    return None
