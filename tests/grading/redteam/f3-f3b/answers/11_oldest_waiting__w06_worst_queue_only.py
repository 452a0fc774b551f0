# RULE: per-queue: only the latest queue (ORDER BY ... LIMIT 1)
def oldest_waiting(conn):
    """{queue: seconds since its oldest unfinished, due-or-tried job became due}."""
    rows = conn.execute("""
        SELECT queue, extract(epoch FROM now() - min(due_at))::float8 AS s
        FROM jobs
        WHERE run_at <= now() OR attempts > 0
        GROUP BY queue
        ORDER BY s DESC
        LIMIT 1""").fetchall()
    return dict(rows)
