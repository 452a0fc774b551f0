# RULE: who-waits: attempts > 1: a job running its first attempt, or waiting for its first retry, is left out
def oldest_waiting(conn):
    """{queue: seconds since its oldest unfinished, due-or-tried job became due}."""
    rows = conn.execute("""
        SELECT queue, extract(epoch FROM now() - min(due_at))::float8
        FROM jobs
        WHERE run_at <= now() OR attempts > 1
        GROUP BY queue""").fetchall()
    return dict(rows)
