# exercise: 04.heartbeat
# kind: wrong
# rule: fenced: UPDATE by id only
def extend_lease(conn, job, lease_s):
    cur = conn.execute("UPDATE jobs SET run_at = now() + make_interval(secs => %s) WHERE id = %s",
                       [lease_s, job.id])
    return cur.rowcount == 1
