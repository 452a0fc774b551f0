# RULE: oldest-in-seconds (the oldest job): takes the claim's next job (highest priority first), not the oldest
def oldest_waiting(conn):
    """{queue: seconds since its oldest unfinished, due-or-tried job became due}."""
    rows = conn.execute("""
        SELECT DISTINCT ON (queue) queue, extract(epoch FROM now() - due_at)::float8
        FROM jobs
        WHERE run_at <= now() OR attempts > 0
        ORDER BY queue, priority DESC, due_at""").fetchall()
    return dict(rows)
