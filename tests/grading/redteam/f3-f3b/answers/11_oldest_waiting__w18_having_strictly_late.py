# RULE: who-waits (due exactly now included): a queue whose oldest job became due this instant (0 s) is left out
def oldest_waiting(conn):
    """{queue: seconds since its oldest unfinished, due-or-tried job became due}."""
    rows = conn.execute("""
        SELECT queue, extract(epoch FROM now() - min(due_at))::float8
        FROM jobs
        WHERE run_at <= now() OR attempts > 0
        GROUP BY queue
        HAVING min(due_at) < now()""").fetchall()
    return dict(rows)
