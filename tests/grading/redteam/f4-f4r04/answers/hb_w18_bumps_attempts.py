# exercise: 04.heartbeat
# kind: wrong
# rule: only-run-at: counts the beat as an attempt
def extend_lease(conn, job, lease_s):
    cur = conn.execute("UPDATE jobs SET run_at = now() + make_interval(secs => %s), attempts = attempts + 1 "
                       "WHERE id = %s AND lease_token = %s", [lease_s, job.id, job.lease_token])
    return cur.rowcount == 1
