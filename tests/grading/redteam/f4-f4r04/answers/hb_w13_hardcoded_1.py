# exercise: 04.heartbeat
# kind: wrong
# rule: from-now: ignores lease_s, always 1 s (the check's workers' lease)
def extend_lease(conn, job, lease_s):
    cur = conn.execute("UPDATE jobs SET run_at = now() + interval '1 second' WHERE id = %s AND lease_token = %s",
                       [job.id, job.lease_token])
    return cur.rowcount == 1
