# exercise: 04.heartbeat
# kind: correct
# rule: correct (interval from text, RETURNING run_at, claimed_at noted)
def extend_lease(conn, job, lease_s):
    row = conn.execute(
        """UPDATE jobs
           SET run_at = now() + (%(secs)s || ' seconds')::interval, claimed_at = now()
           WHERE id = %(id)s AND lease_token = %(token)s
           RETURNING run_at""",
        {"secs": str(float(lease_s)), "id": job.id, "token": job.lease_token},
    ).fetchone()
    return row[0] if row else None
