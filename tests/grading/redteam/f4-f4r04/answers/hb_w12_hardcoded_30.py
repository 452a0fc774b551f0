# exercise: 04.heartbeat
# kind: wrong
# rule: from-now: ignores lease_s, always the course's default 30 s
def extend_lease(conn, job, lease_s):
    cur = conn.execute("UPDATE jobs SET run_at = now() + interval '30 seconds' WHERE id = %s AND lease_token = %s",
                       [job.id, job.lease_token])
    return cur.rowcount == 1
