# expect: correct
# rule: correct: a CTE that locks our row, UPDATE ... FROM, exists-style boolean
def extend_lease(conn, job, lease_s):
    row = conn.execute("""WITH ours AS (SELECT id FROM jobs WHERE id = %s AND lease_token = %s FOR UPDATE)
                          UPDATE jobs SET run_at = now() + make_interval(secs => %s) FROM ours
                          WHERE jobs.id = ours.id RETURNING true""", [job.id, job.lease_token, lease_s]).fetchone()
    return row is not None
