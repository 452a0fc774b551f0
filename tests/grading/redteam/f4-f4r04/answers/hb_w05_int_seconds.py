# exercise: 04.heartbeat
# kind: wrong
# rule: from-now: int(lease_s) truncates fractional leases (2.5 s -> 2 s)
def extend_lease(conn, job, lease_s):
    cur = conn.execute("UPDATE jobs SET run_at = now() + %s * interval '1 second' "
                       "WHERE id = %s AND lease_token = %s", [int(lease_s), job.id, job.lease_token])
    return cur.rowcount == 1
