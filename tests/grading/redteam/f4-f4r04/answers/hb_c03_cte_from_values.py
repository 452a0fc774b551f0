# exercise: 04.heartbeat
# kind: correct
# rule: correct (UPDATE ... FROM a VALUES row, count of a CTE)
def extend_lease(conn, job, lease_s):
    (n,) = conn.execute("""
        WITH beat AS (
            UPDATE jobs AS j SET run_at = statement_timestamp() + mine.lease * interval '1 second'
            FROM (VALUES (%s::bigint, %s::uuid, %s::float8)) AS mine (id, token, lease)
            WHERE j.id = mine.id AND j.lease_token = mine.token
            RETURNING j.id
        )
        SELECT count(*) FROM beat""", (job.id, job.lease_token, lease_s)).fetchone()
    return n > 0
