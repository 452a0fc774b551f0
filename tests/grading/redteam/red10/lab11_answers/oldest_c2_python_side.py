# correct
def oldest_waiting(conn):
    now, = conn.execute("SELECT now()").fetchone()
    rows = conn.execute("SELECT queue, due_at, run_at, attempts, lease_token FROM jobs").fetchall()
    oldest = {}
    for queue_name, due_at, run_at, attempts, lease_token in rows:
        planned_for_later = run_at > now and attempts == 0 and lease_token is None
        if planned_for_later:
            continue
        if queue_name not in oldest or due_at < oldest[queue_name]:
            oldest[queue_name] = due_at
    return {q: (now - due).total_seconds() for q, due in oldest.items()}
