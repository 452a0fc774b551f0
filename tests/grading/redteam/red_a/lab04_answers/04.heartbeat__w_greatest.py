# expect: wrong
# rule: from-now: keeps the later of the current end and now + lease_s
def extend_lease(conn, job, lease_s):
    return conn.execute("UPDATE jobs SET run_at = greatest(run_at, now() + make_interval(secs => %s)) "
                        "WHERE id = %s AND lease_token = %s", [lease_s, job.id, job.lease_token]).rowcount == 1
