# exercise: 04.heartbeat
# kind: wrong
# rule: from-now: lease_s from the claim (claimed_at), not from now
def extend_lease(conn, job, lease_s):
    cur = conn.execute("UPDATE jobs SET run_at = claimed_at + make_interval(secs => %s) "
                       "WHERE id = %s AND lease_token = %s", [lease_s, job.id, job.lease_token])
    return cur.rowcount == 1
