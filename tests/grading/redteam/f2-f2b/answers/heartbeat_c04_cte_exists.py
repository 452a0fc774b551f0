# correct | - | CTE UPDATE, SELECT EXISTS, token compared as text
def extend_lease(conn, job, lease_s):
    return conn.execute("""
        WITH beat AS (
            UPDATE jobs SET run_at = now() + make_interval(secs => %s)
            WHERE id = %s AND lease_token::text = %s
            RETURNING id)
        SELECT EXISTS (SELECT 1 FROM beat)""", [lease_s, job.id, str(job.lease_token)]).fetchone()[0]
