# wrong | who-waits (ready jobs only: no running, no retry)
def oldest_waiting(conn):
    rows = conn.execute("""
        SELECT queue, EXTRACT(EPOCH FROM now() - min(due_at))::float8
        FROM jobs WHERE run_at <= now() AND lease_token IS NULL GROUP BY queue""").fetchall()
    return dict(rows)
