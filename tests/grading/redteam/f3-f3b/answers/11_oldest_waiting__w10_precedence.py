# RULE: who-waits (running now): AND binds tighter than OR: a running job (lease set, run_at in the future) is left out
def oldest_waiting(conn):
    """{queue: seconds since its oldest unfinished, due-or-tried job became due}."""
    rows = conn.execute("""
        SELECT queue, extract(epoch FROM now() - min(due_at))::float8
        FROM jobs
        WHERE run_at <= now() OR attempts > 0 AND lease_token IS NULL
        GROUP BY queue""").fetchall()
    return dict(rows)
