# exercise: 04.heartbeat
# kind: wrong
# rule: only-run-at: writes a new lease token too (the worker's ack then fails)
def extend_lease(conn, job, lease_s):
    cur = conn.execute("UPDATE jobs SET run_at = now() + make_interval(secs => %s), lease_token = gen_random_uuid() "
                       "WHERE id = %s AND lease_token = %s", [lease_s, job.id, job.lease_token])
    return cur.rowcount == 1
