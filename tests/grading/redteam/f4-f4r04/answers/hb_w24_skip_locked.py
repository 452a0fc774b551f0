# exercise: 04.heartbeat
# kind: wrong
# rule: says-so/from-now: SKIP LOCKED: a lease still ours but whose row is locked for a moment is not extended and reported lost
def extend_lease(conn, job, lease_s):
    cur = conn.execute("""
        UPDATE jobs SET run_at = now() + make_interval(secs => %s)
        WHERE id = (SELECT id FROM jobs WHERE id = %s AND lease_token = %s FOR UPDATE SKIP LOCKED)""",
        [lease_s, job.id, job.lease_token])
    return cur.rowcount == 1
