# RULE: who-waits: leaves out jobs with a lease (running now, left behind by a dead worker)
def oldest_waiting(conn):
    """{queue: seconds since its oldest unfinished, due-or-tried job became due}."""
    rows = conn.execute("""
        SELECT queue, extract(epoch FROM now() - min(due_at))::float8
        FROM jobs
        WHERE lease_token IS NULL AND (run_at <= now() OR attempts > 0)
        GROUP BY queue""").fetchall()
    return {q: s for q, s in rows}
