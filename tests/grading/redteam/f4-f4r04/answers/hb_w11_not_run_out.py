# exercise: 04.heartbeat
# kind: wrong
# rule: from-now/says-so: refuses a lease that has run out though the token is still ours
def extend_lease(conn, job, lease_s):
    cur = conn.execute("UPDATE jobs SET run_at = now() + make_interval(secs => %s) "
                       "WHERE id = %s AND lease_token = %s AND run_at > now()", [lease_s, job.id, job.lease_token])
    return cur.rowcount == 1
