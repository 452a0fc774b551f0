import datetime


def oldest_waiting(conn):
    now, = conn.execute("SELECT now()").fetchone()
    oldest = {}
    for q, due_at, run_at, attempts, token in conn.execute(
            "SELECT queue, due_at, run_at, attempts, lease_token FROM jobs"):
        waits = token is not None or attempts >= 1 or run_at <= now
        if waits and (q not in oldest or due_at < oldest[q]):
            oldest[q] = due_at
    return {q: (now - due).total_seconds() for q, due in oldest.items()}
