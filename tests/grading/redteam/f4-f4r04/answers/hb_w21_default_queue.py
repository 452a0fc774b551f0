# exercise: 04.heartbeat
# kind: wrong
# rule: fenced/from-now: only jobs of the 'default' queue are extended
def extend_lease(conn, job, lease_s):
    cur = conn.execute("UPDATE jobs SET run_at = now() + make_interval(secs => %s) "
                       "WHERE queue = 'default' AND id = %s AND lease_token = %s", [lease_s, job.id, job.lease_token])
    return cur.rowcount == 1
