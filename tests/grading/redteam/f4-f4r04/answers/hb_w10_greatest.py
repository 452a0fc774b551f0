# exercise: 04.heartbeat
# kind: wrong
# rule: from-now: never shortens (greatest of the current end and now + lease_s)
def extend_lease(conn, job, lease_s):
    cur = conn.execute("UPDATE jobs SET run_at = greatest(run_at, now() + make_interval(secs => %s)) "
                       "WHERE id = %s AND lease_token = %s", [lease_s, job.id, job.lease_token])
    return cur.rowcount == 1
