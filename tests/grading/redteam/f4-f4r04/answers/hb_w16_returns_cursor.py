# exercise: 04.heartbeat
# kind: wrong
# rule: says-so: returns the cursor, always true
def extend_lease(conn, job, lease_s):
    return conn.execute("UPDATE jobs SET run_at = now() + make_interval(secs => %s) WHERE id = %s AND lease_token = %s",
                        [lease_s, job.id, job.lease_token])
