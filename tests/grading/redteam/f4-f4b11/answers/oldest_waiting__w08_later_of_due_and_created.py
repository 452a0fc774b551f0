# expect: wrong
# rule: from-due-at: measures from greatest(due_at, created_at) ("a job cannot be late before it existed"): a job enqueued with a run_at in the past is measured from its insert
def oldest_waiting(conn):
    """{queue: seconds since its oldest unfinished, due-or-tried job became due}."""
    rows = conn.execute("""
        SELECT queue, extract(epoch FROM now() - min(greatest(due_at, created_at)))::float8
        FROM jobs
        WHERE run_at <= now() OR attempts > 0
        GROUP BY queue""")
    return {q: s for q, s in rows}
