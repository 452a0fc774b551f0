# expect: wrong
# rule: not-yet-due (queues where nobody waits are listed with 0)
def oldest_waiting(conn):
    rows = conn.execute("""SELECT queue,
            coalesce(extract(epoch FROM now() - min(due_at) FILTER (WHERE run_at <= now() OR attempts > 0)), 0)::float8
        FROM jobs GROUP BY queue""").fetchall()
    return dict(rows)
