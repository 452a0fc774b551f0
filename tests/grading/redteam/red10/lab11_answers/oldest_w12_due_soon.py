# wrong | not-yet-due (a job due within the next minute counted)
def oldest_waiting(conn):
    rows = conn.execute("""
        SELECT queue, GREATEST(0, EXTRACT(EPOCH FROM now() - min(due_at)))::float8
        FROM jobs WHERE run_at <= now() + interval '1 minute' OR attempts > 0 GROUP BY queue""").fetchall()
    return dict(rows)
