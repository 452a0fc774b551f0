# exercise: 04.heartbeat
# kind: wrong
# rule: from-now: extends from the end of the current lease (run_at + lease_s)
def extend_lease(conn, job, lease_s):
    cur = conn.execute("UPDATE jobs SET run_at = run_at + make_interval(secs => %s) "
                       "WHERE id = %s AND lease_token = %s", [lease_s, job.id, job.lease_token])
    return cur.rowcount == 1
