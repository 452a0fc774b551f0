# RULE: who-waits: a retry is recognised by last_error, not by attempts >= 1 as the table says
def oldest_waiting(conn):
    """{queue: seconds since its oldest unfinished, due-or-tried job became due}."""
    rows = conn.execute("""
        SELECT queue, extract(epoch FROM now() - min(due_at))::float8
        FROM jobs
        WHERE run_at <= now() OR lease_token IS NOT NULL OR last_error IS NOT NULL
        GROUP BY queue""").fetchall()
    return dict(rows)
