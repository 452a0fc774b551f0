# RULE: who-waits/not-yet-due: counts jobs due within 5 minutes (a retry waits at most CAP_S) instead of attempts >= 1
def oldest_waiting(conn):
    """{queue: seconds since its oldest unfinished, due-or-tried job became due}."""
    rows = conn.execute("""
        SELECT queue, extract(epoch FROM now() - min(due_at))::float8
        FROM jobs
        WHERE run_at <= now() + interval '5 minutes'
        GROUP BY queue""").fetchall()
    return dict(rows)
