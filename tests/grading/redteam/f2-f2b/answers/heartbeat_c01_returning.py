# correct | - | RETURNING the new lease end; returns it or None
def extend_lease(conn, job, lease_s):
    row = conn.execute("UPDATE jobs SET run_at = now() + make_interval(secs => %s) WHERE id = %s AND lease_token = %s RETURNING run_at", [lease_s, job.id, job.lease_token]).fetchone()
    return row[0] if row else None
