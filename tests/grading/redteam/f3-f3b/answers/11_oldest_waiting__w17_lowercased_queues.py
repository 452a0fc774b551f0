# RULE: per-queue (one entry per queue): folds queue names to lower case, merging 'Receipts' into 'receipts'
def oldest_waiting(conn):
    """{queue: seconds since its oldest unfinished, due-or-tried job became due}."""
    rows = conn.execute("""
        SELECT lower(queue), extract(epoch FROM now() - min(due_at))::float8
        FROM jobs
        WHERE run_at <= now() OR attempts > 0
        GROUP BY lower(queue)""").fetchall()
    return dict(rows)
