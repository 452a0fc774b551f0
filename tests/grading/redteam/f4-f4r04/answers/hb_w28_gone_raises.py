# exercise: 04.heartbeat
# kind: wrong
# rule: says-so: raises TypeError for a job that is gone instead of returning false
def extend_lease(conn, job, lease_s):
    row = conn.execute("UPDATE jobs SET run_at = now() + make_interval(secs => %s) WHERE id = %s AND lease_token = %s "
                       "RETURNING lease_token", [lease_s, job.id, job.lease_token]).fetchone()
    return row[0] == job.lease_token
