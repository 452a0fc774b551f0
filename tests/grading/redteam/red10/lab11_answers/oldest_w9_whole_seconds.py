# wrong | oldest-in-seconds (rounded down to whole seconds)
def oldest_waiting(conn):
    rows = conn.execute("""
        SELECT queue, EXTRACT(EPOCH FROM date_trunc('second', now() - min(due_at)))::int
        FROM jobs WHERE run_at <= now() OR attempts > 0 GROUP BY queue""").fetchall()
    return dict(rows)
