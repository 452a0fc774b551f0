# expect: wrong
# rule: oldest-in-seconds (EXTRACT(SECOND ...) is only the seconds field: 0 to 59)
def oldest_waiting(conn):
    rows = conn.execute("""SELECT queue, extract(second FROM now() - min(due_at))::float8
        FROM jobs WHERE run_at <= now() OR attempts > 0 GROUP BY queue""").fetchall()
    return dict(rows)
