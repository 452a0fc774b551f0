# expect: correct
# rule: correct (reads the rows, the server's clock once, and computes in Python)
def oldest_waiting(conn):
    rows = conn.execute("SELECT queue, due_at, run_at, attempts, now() FROM jobs").fetchall()
    oldest = {}
    for queue, due_at, run_at, attempts, now in rows:
        if run_at <= now or attempts > 0:
            if queue not in oldest or due_at < oldest[queue][0]:
                oldest[queue] = (due_at, now)
    return {q: (now - due).total_seconds() for q, (due, now) in oldest.items()}
