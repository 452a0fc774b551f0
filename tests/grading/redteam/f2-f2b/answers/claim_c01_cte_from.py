# correct | - | CTE that locks, UPDATE ... FROM the CTE, RETURNING with aliases
def claim(conn, lease_s):
    sql = """
        WITH pick AS (
            SELECT j.id FROM jobs AS j
            WHERE j.run_at <= now() AND coalesce(j.locked_until, '-infinity') < now()
            ORDER BY j.run_at
            LIMIT 1
            FOR UPDATE SKIP LOCKED
        )
        UPDATE jobs AS t
        SET attempts = t.attempts + 1, locked_until = now() + %(lease)s * interval '1 second'
        FROM pick
        WHERE t.id = pick.id
        RETURNING t.id AS job_id, t.type AS job_type, t.payload AS job_payload"""
    with conn.cursor() as cur:
        cur.execute(sql, {"lease": lease_s})
        found = cur.fetchall()
    if not found:
        return None
    (job_id, job_type, job_payload), = found
    return job_id, job_type, job_payload
