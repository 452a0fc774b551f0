# exercise: 04.heartbeat
# kind: wrong
# rule: fenced: also extends a job handed back for a retry (token NULL): takes it back
def extend_lease(conn, job, lease_s):
    cur = conn.execute("UPDATE jobs SET run_at = now() + make_interval(secs => %s) "
                       "WHERE id = %s AND (lease_token = %s OR lease_token IS NULL)", [lease_s, job.id, job.lease_token])
    return cur.rowcount == 1
