# wrong | from-now | int(lease_s): a 1.5 s lease extended by 1 s
def extend_lease(conn, job, lease_s):
    return conn.execute("UPDATE jobs SET run_at = now() + make_interval(secs => %s) WHERE id = %s AND lease_token = %s", [int(lease_s), job.id, job.lease_token]).rowcount == 1
