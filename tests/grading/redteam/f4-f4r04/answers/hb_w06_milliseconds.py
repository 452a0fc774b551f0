# exercise: 04.heartbeat
# kind: wrong
# rule: from-now: wrong units (lease_s taken as milliseconds)
def extend_lease(conn, job, lease_s):
    cur = conn.execute("UPDATE jobs SET run_at = now() + %s * interval '1 millisecond' "
                       "WHERE id = %s AND lease_token = %s", [lease_s * 1000 / 1000, job.id, job.lease_token])
    return cur.rowcount == 1
