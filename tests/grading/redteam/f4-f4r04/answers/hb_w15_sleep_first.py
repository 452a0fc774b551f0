# exercise: 04.heartbeat
# kind: wrong
# rule: from-now: sleeps a third of the lease before beating (the beat lands late)
import time

def extend_lease(conn, job, lease_s):
    time.sleep(lease_s / 3)   # pace the heartbeat
    cur = conn.execute("UPDATE jobs SET run_at = now() + make_interval(secs => %s) WHERE id = %s AND lease_token = %s",
                       [lease_s, job.id, job.lease_token])
    return cur.rowcount == 1
