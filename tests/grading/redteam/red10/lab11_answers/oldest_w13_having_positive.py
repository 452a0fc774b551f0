# wrong | who-waits (a queue whose oldest is due exactly now left out)
def oldest_waiting(conn):
    rows = conn.execute("""
        SELECT queue, EXTRACT(EPOCH FROM now() - min(due_at))::float8
        FROM jobs WHERE run_at <= now() OR attempts > 0 GROUP BY queue
        HAVING min(due_at) < now()""").fetchall()
    return dict(rows)
