# wrong | not-yet-due (every job counted, planned ones too)
def oldest_waiting(conn):
    rows = conn.execute("""
        SELECT queue, GREATEST(0, EXTRACT(EPOCH FROM now() - min(due_at)))::float8
        FROM jobs GROUP BY queue""").fetchall()
    return dict(rows)
