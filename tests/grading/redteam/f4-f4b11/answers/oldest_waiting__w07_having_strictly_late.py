# expect: wrong
# rule: who-waits / per-queue: HAVING min(due_at) < now() drops a queue whose oldest job is due exactly now (0 s, but someone waits)
def oldest_waiting(conn):
    """{queue: seconds since its oldest unfinished, due-or-tried job became due}."""
    rows = conn.execute("""
        SELECT queue, extract(epoch FROM now() - min(due_at))::float8
        FROM jobs
        WHERE run_at <= now() OR attempts > 0
        GROUP BY queue
        HAVING min(due_at) < now()      -- only queues that are actually behind""")
    return {q: s for q, s in rows}
