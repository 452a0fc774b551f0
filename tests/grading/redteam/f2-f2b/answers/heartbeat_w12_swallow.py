# wrong | says-so | any exception swallowed and reported as extended
def extend_lease(conn, job, lease_s):
    try:
        return conn.execute("UPDATE jobs SET run_at = now() + make_interval(secs => %s) WHERE id = %s AND lease_token = %s", [lease_s, job.id, job.lease_token]).rowcount == 1
    except Exception:
        return True
