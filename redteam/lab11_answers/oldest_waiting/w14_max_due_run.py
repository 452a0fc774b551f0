# expect: wrong
# rule: from-due-at (measures from the later of due_at and created_at, "to be safe")
def oldest_waiting(conn):
    rows = conn.execute("""SELECT queue, extract(epoch FROM now() - min(greatest(due_at, created_at)))::float8
        FROM jobs WHERE run_at <= now() OR attempts > 0 GROUP BY queue""").fetchall()
    return dict(rows)
