# RULE: not-yet-due (arguable): decides who waits by due_at <= now(), not by run_at/attempts as the table does
def oldest_waiting(conn):
    """{queue: seconds since its oldest unfinished, due-or-tried job became due}."""
    rows = conn.execute("""
        SELECT queue, extract(epoch FROM now() - min(due_at))::float8
        FROM jobs
        WHERE due_at <= now()
        GROUP BY queue""").fetchall()
    return dict(rows)
