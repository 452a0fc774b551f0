# exercise: 04.heartbeat
# kind: wrong
# rule: fenced/from-now: casts job.id to int4 (fails for ids past 2^31)
def extend_lease(conn, job, lease_s):
    cur = conn.execute("UPDATE jobs SET run_at = now() + make_interval(secs => %s) "
                       "WHERE id = %s::int4 AND lease_token = %s", [lease_s, job.id, job.lease_token])
    return cur.rowcount == 1
