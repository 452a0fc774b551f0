# expect: wrong
# rule: who-waits: "tried" taken as last_error IS NOT NULL, so a job running its first attempt (run_at = lease end, no error yet) is not counted
def oldest_waiting(conn):
    """{queue: seconds since its oldest unfinished, due-or-tried job became due}."""
    rows = conn.execute("""
        SELECT queue, extract(epoch FROM now() - min(due_at))::float8
        FROM jobs
        WHERE run_at <= now()            -- waiting, or left behind by a dead worker
           OR last_error IS NOT NULL     -- failed before: waiting for its retry
        GROUP BY queue""").fetchall()
    return dict(rows)
