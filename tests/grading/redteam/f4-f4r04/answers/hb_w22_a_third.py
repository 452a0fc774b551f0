# exercise: 04.heartbeat
# kind: wrong
# rule: from-now: extends by a third of the lease (the beat's interval) instead of lease_s
def extend_lease(conn, job, lease_s):
    cur = conn.execute("UPDATE jobs SET run_at = now() + make_interval(secs => %s) WHERE id = %s AND lease_token = %s",
                       [lease_s / 3, job.id, job.lease_token])
    return cur.rowcount == 1
