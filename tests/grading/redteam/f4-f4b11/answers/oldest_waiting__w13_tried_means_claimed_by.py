# expect: wrong
# rule: who-waits: "tried" read as claimed_by IS NOT NULL; a retry hands the job back with claimed_by cleared, so a job waiting for its retry is not counted
def oldest_waiting(conn):
    """{queue: seconds since its oldest unfinished, due-or-tried job became due}."""
    rows = conn.execute("""
        SELECT queue, extract(epoch FROM now() - min(due_at))::float8
        FROM jobs
        WHERE run_at <= now() OR claimed_by IS NOT NULL
        GROUP BY queue""")
    return {q: s for q, s in rows}
