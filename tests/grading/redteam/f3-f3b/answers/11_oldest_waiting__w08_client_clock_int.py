# RULE: oldest-in-seconds: whole seconds (int() truncates 0.9 s to 0)
def oldest_waiting(conn):
    """{queue: seconds since its oldest unfinished, due-or-tried job became due}."""
    rows = conn.execute("""
        SELECT queue, min(due_at), now()
        FROM jobs
        WHERE run_at <= now() OR attempts > 0
        GROUP BY queue""").fetchall()
    return {q: int((now - due).total_seconds()) for q, due, now in rows}
