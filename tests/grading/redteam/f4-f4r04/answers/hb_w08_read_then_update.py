# exercise: 04.heartbeat
# kind: wrong
# rule: fenced: token checked in a SELECT, then UPDATE by id (race)
def extend_lease(conn, job, lease_s):
    row = conn.execute("SELECT lease_token FROM jobs WHERE id = %s", [job.id]).fetchone()
    if row is None or row[0] != job.lease_token:
        return False
    conn.execute("UPDATE jobs SET run_at = now() + make_interval(secs => %s) WHERE id = %s", [lease_s, job.id])
    return True
