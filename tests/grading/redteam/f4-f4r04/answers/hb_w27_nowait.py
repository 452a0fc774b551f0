# exercise: 04.heartbeat
# kind: wrong
# rule: says-so: FOR UPDATE NOWAIT raises when the row is locked for a moment (an ack in flight, a reader)
def extend_lease(conn, job, lease_s):
    with conn.transaction():
        row = conn.execute("SELECT 1 FROM jobs WHERE id = %s AND lease_token = %s FOR UPDATE NOWAIT",
                           [job.id, job.lease_token]).fetchone()
        if row is None:
            return False
        conn.execute("UPDATE jobs SET run_at = now() + make_interval(secs => %s) WHERE id = %s", [lease_s, job.id])
    return True
