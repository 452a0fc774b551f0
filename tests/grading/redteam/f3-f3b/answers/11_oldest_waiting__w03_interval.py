# RULE: oldest-in-seconds: returns the interval (a timedelta), not seconds
def oldest_waiting(conn):
    """{queue: seconds since its oldest unfinished, due-or-tried job became due}."""
    rows = conn.execute("""
        SELECT queue, now() - min(due_at)
        FROM jobs
        WHERE run_at <= now() OR attempts > 0
        GROUP BY queue""").fetchall()
    return dict(rows)
