# exercise: 04.heartbeat
# kind: wrong
# rule: only-run-at: also moves due_at
def extend_lease(conn, job, lease_s):
    cur = conn.execute("UPDATE jobs SET run_at = now() + make_interval(secs => %s), "
                       "due_at = now() + make_interval(secs => %s) WHERE id = %s AND lease_token = %s",
                       [lease_s, lease_s, job.id, job.lease_token])
    return cur.rowcount == 1
