# exercise: 04.heartbeat
# kind: correct
# rule: correct (a Python timedelta as the interval, RETURNING id, fetchall)
from datetime import timedelta

def extend_lease(conn, job, lease_s):
    return conn.execute("UPDATE jobs SET run_at = now() + %(lease)s WHERE id = %(id)s AND lease_token = %(t)s "
                        "RETURNING id", {"lease": timedelta(seconds=lease_s), "id": job.id, "t": job.lease_token}).fetchall()
