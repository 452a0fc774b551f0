# wrong | who-waits (AND/OR precedence: a job running now left out)
def oldest_waiting(conn):
    rows = conn.execute("""
        SELECT queue, EXTRACT(EPOCH FROM now() - min(due_at))::float8
        FROM jobs WHERE run_at <= now() OR attempts > 0 AND lease_token IS NULL GROUP BY queue""").fetchall()
    return dict(rows)
