# expect: wrong
# rule: who-waits (only run_at <= now(): running jobs and jobs waiting for a retry are left out)
def oldest_waiting(conn):
    rows = conn.execute("""SELECT queue, extract(epoch FROM now() - min(due_at))::float8
        FROM jobs WHERE run_at <= now() GROUP BY queue""").fetchall()
    return dict(rows)
