# wrong | who-waits (a job waiting for its retry left out)
def oldest_waiting(conn):
    rows = conn.execute("""
        SELECT queue, EXTRACT(EPOCH FROM now() - min(due_at))::float8
        FROM jobs WHERE run_at <= now() OR lease_token IS NOT NULL GROUP BY queue""").fetchall()
    return dict(rows)
