# RULE: correct
def oldest_waiting(conn):
    """{queue: seconds since its oldest unfinished, due-or-tried job became due}."""
    rows = conn.execute("""
        SELECT queue, due_at, now() AS server_now
        FROM jobs
        WHERE run_at <= now() OR attempts > 0""").fetchall()
    result = {}
    for q, due, server_now in rows:
        age = (server_now - due).total_seconds()
        result[q] = max(result.get(q, age), age)
    return result
