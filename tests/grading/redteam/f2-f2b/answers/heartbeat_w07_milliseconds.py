# wrong | from-now | lease_s taken as milliseconds
def extend_lease(conn, job, lease_s):
    return conn.execute("UPDATE jobs SET run_at = now() + %s * interval '1 millisecond' WHERE id = %s AND lease_token = %s", [lease_s, job.id, job.lease_token]).rowcount == 1
