# exercise: 04.heartbeat
# kind: wrong
# rule: from-now: extends from the claim's original lease end (job.lease_expires_at)
import datetime

def extend_lease(conn, job, lease_s):
    new_end = job.lease_expires_at + datetime.timedelta(seconds=lease_s)
    cur = conn.execute("UPDATE jobs SET run_at = %s WHERE id = %s AND lease_token = %s",
                       [new_end, job.id, job.lease_token])
    return cur.rowcount == 1
