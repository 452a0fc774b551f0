# wrong | each-once | reads every ready job, picks the oldest in Python, then marks it with a guard-free UPDATE
def claim(conn, lease_s):
    rows = conn.execute("SELECT id, type, payload, run_at FROM jobs "
                        "WHERE run_at <= now() AND (locked_until IS NULL OR locked_until < now())").fetchall()
    if not rows:
        return None
    job_id, type_, payload, _ = min(rows, key=lambda r: r[3])
    conn.execute("UPDATE jobs SET locked_until = now() + make_interval(secs => %s), attempts = attempts + 1 "
                 "WHERE id = %s", [lease_s, job_id])
    return (job_id, type_, payload)
