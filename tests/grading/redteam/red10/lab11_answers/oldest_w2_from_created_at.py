# wrong | from-due-at (measures from created_at)
def oldest_waiting(conn):
    rows = conn.execute("""
        SELECT queue, EXTRACT(EPOCH FROM now() - min(created_at))::float8
        FROM jobs WHERE run_at <= now() OR attempts > 0 GROUP BY queue""").fetchall()
    return dict(rows)
