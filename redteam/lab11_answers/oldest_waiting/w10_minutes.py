# expect: wrong
# rule: oldest-in-seconds (minutes, as a dashboard shows them)
def oldest_waiting(conn):
    rows = conn.execute("""SELECT queue, extract(epoch FROM now() - min(due_at))::float8 / 60
        FROM jobs WHERE run_at <= now() OR attempts > 0 GROUP BY queue""").fetchall()
    return dict(rows)
