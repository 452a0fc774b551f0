# expect: wrong
# rule: oldest-in-seconds (max(due_at): the newest job, not the oldest)
def oldest_waiting(conn):
    rows = conn.execute("""SELECT queue, extract(epoch FROM now() - max(due_at))::float8
        FROM jobs WHERE run_at <= now() OR attempts > 0 GROUP BY queue""").fetchall()
    return dict(rows)
