# correct
def oldest_waiting(conn):
    """{queue: seconds since its oldest unfinished, due-or-tried job became due}."""
    rows = conn.execute("""
        SELECT queue, EXTRACT(EPOCH FROM now() - min(due_at))
        FROM jobs
        WHERE run_at <= now() OR attempts > 0
        GROUP BY queue""").fetchall()
    return {q: float(s) for q, s in rows}
