# expect: wrong
# rule: oldest-in-seconds / from-due-at: "the oldest job" taken as the first one enqueued (lowest id) among those waited for, and its due_at read; a later job with an earlier due_at (back-dated, or the first one enqueued with a delay) is missed
def oldest_waiting(conn):
    """{queue: seconds since its oldest unfinished, due-or-tried job became due}."""
    rows = conn.execute("""
        SELECT DISTINCT ON (queue) queue, extract(epoch FROM now() - due_at)::float8
        FROM jobs
        WHERE run_at <= now() OR attempts > 0
        ORDER BY queue, id""")
    return {q: s for q, s in rows}
