# wrong | from-now | adversarial: lease hard-coded to 1 s, the demo's lease
def extend_lease(conn, job, lease_s):
    return conn.execute("UPDATE jobs SET run_at = now() + interval '1 second' WHERE id = %s AND lease_token = %s", [job.id, job.lease_token]).rowcount == 1
