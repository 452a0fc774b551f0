# wrong | oldest-in-seconds (an interval, not seconds)
def oldest_waiting(conn):
    rows = conn.execute("""
        SELECT queue, now() - min(due_at)
        FROM jobs WHERE run_at <= now() OR attempts > 0 GROUP BY queue""").fetchall()
    return dict(rows)
