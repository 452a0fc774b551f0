# RULE: who-waits: leaves out jobs waiting for their retry (lease_token NULL, run_at in the future, attempts >= 1)
def oldest_waiting(conn):
    """{queue: seconds since its oldest unfinished, due-or-tried job became due}."""
    rows = conn.execute("""
        SELECT queue, extract(epoch FROM now() - min(due_at))::float8
        FROM jobs
        WHERE run_at <= now() OR lease_token IS NOT NULL
        GROUP BY queue""").fetchall()
    return dict(rows)
