# exercise: 04.heartbeat
# kind: wrong
# rule: lock held too long: keeps the job's row locked for a third of the lease after the beat
import time

def extend_lease(conn, job, lease_s):
    with conn.transaction():
        cur = conn.execute("UPDATE jobs SET run_at = now() + make_interval(secs => %s) "
                           "WHERE id = %s AND lease_token = %s", [lease_s, job.id, job.lease_token])
        time.sleep(lease_s / 3)   # the beat's pause, kept inside so nobody touches the job meanwhile
    return cur.rowcount == 1
