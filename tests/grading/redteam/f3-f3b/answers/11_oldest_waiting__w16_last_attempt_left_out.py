# RULE: who-waits (running now): leaves out a job on its last attempt ("it will not be retried")
def oldest_waiting(conn):
    """{queue: seconds since its oldest unfinished, due-or-tried job became due}."""
    rows = conn.execute("""
        SELECT queue, extract(epoch FROM now() - min(due_at))::float8
        FROM jobs
        WHERE (run_at <= now() OR attempts > 0) AND attempts < max_attempts
        GROUP BY queue""").fetchall()
    return dict(rows)
