# expect: wrong
# rule: who-waits (run_at < now(): a job due exactly now is left out)
def oldest_waiting(conn):
    rows = conn.execute("""SELECT queue, extract(epoch FROM now() - min(due_at))::float8
        FROM jobs WHERE run_at < now() OR attempts > 0 GROUP BY queue""").fetchall()
    return dict(rows)
