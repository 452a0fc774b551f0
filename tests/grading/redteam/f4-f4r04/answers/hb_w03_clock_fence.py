# exercise: 04.heartbeat
# kind: wrong
# rule: fenced: by the clock (run_at > now()) instead of the token
def extend_lease(conn, job, lease_s):
    cur = conn.execute("UPDATE jobs SET run_at = now() + make_interval(secs => %s) "
                       "WHERE id = %s AND run_at > now()", [lease_s, job.id])
    return cur.rowcount == 1
