# wrong | from-now | token AND run_at > now(): a lease run out but still ours (nobody claimed) is not extended
def extend_lease(conn, job, lease_s):
    return conn.execute("UPDATE jobs SET run_at = now() + make_interval(secs => %s) WHERE id = %s AND lease_token = %s AND run_at > now()", [lease_s, job.id, job.lease_token]).rowcount == 1
