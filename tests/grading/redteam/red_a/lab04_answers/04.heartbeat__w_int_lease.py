# expect: wrong
# rule: from-now: lease_s rounded down to whole seconds (a 0.5 s lease ends now)
def extend_lease(conn, job, lease_s):
    return conn.execute("UPDATE jobs SET run_at = now() + make_interval(secs => %s) WHERE id = %s AND lease_token = %s",
                        [int(lease_s), job.id, job.lease_token]).rowcount == 1
