# expect: wrong
# rule: not-yet-due (every job counts, the ones scheduled for later too)
def oldest_waiting(conn):
    rows = conn.execute("""SELECT queue, extract(epoch FROM now() - min(due_at))::float8
        FROM jobs GROUP BY queue""").fetchall()
    return dict(rows)
