# wrong | only-run-at | writes a fresh lease token on each beat
def extend_lease(conn, job, lease_s):
    return conn.execute("UPDATE jobs SET run_at = now() + make_interval(secs => %s), lease_token = gen_random_uuid() WHERE id = %s AND lease_token = %s", [lease_s, job.id, job.lease_token]).rowcount == 1
