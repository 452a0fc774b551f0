# RULE: not-yet-due: picks queues with someone waiting, but takes min(due_at) over all their jobs, planned ones included
def oldest_waiting(conn):
    """{queue: seconds since its oldest unfinished, due-or-tried job became due}."""
    rows = conn.execute("""
        SELECT queue, extract(epoch FROM now() - min(due_at))::float8
        FROM jobs
        GROUP BY queue
        HAVING bool_or(run_at <= now() OR attempts > 0)""").fetchall()
    return dict(rows)
