# RULE: oldest-in-seconds: takes the lowest id as the oldest job (ids are not due order: a job enqueued with a run_at)
def oldest_waiting(conn):
    """{queue: seconds since its oldest unfinished, due-or-tried job became due}."""
    rows = conn.execute("""
        SELECT DISTINCT ON (queue) queue, extract(epoch FROM now() - due_at)::float8
        FROM jobs
        WHERE run_at <= now() OR attempts > 0
        ORDER BY queue, id""").fetchall()
    return dict(rows)
