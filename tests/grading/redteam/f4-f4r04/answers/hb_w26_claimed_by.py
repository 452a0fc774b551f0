# exercise: 04.heartbeat
# kind: wrong
# rule: from-now: refuses jobs claimed without a worker name (claimed_by NULL)
def extend_lease(conn, job, lease_s):
    cur = conn.execute("UPDATE jobs SET run_at = now() + make_interval(secs => %s) "
                       "WHERE id = %s AND lease_token = %s AND claimed_by IS NOT NULL", [lease_s, job.id, job.lease_token])
    return cur.rowcount == 1
