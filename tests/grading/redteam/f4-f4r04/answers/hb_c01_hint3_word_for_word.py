# exercise: 04.heartbeat
# kind: correct
# rule: correct (hint 3, word for word)
def extend_lease(conn, job, lease_s):
    """Push the end of our lease on `job` to lease_s seconds from now; False if the lease is not ours."""
    return conn.execute("UPDATE jobs SET run_at = now() + make_interval(secs => %s) WHERE id = %s AND lease_token = %s",
                        [lease_s, job.id, job.lease_token]).rowcount == 1
