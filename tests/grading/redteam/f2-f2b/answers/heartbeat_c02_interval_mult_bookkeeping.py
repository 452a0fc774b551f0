# correct | - | interval multiplication, named params, notes itself in claimed_at (allowed)
def extend_lease(conn, job, lease_s):
    cur = conn.execute("""
        UPDATE jobs
           SET run_at = now() + %(secs)s * interval '1 second', claimed_at = now()
         WHERE (id, lease_token) = (%(id)s, %(token)s)""", {"secs": lease_s, "id": job.id, "token": job.lease_token})
    return bool(cur.rowcount)
