# expect: wrong
# rule: oldest-in-seconds / who-waits: looks only at the 500 most recent jobs (to keep a 10,000-job table cheap) - correct on small tables only: with more jobs the oldest one is never seen
def oldest_waiting(conn):
    """{queue: seconds since its oldest unfinished, due-or-tried job became due}."""
    rows = conn.execute("""
        WITH recent AS (SELECT queue, due_at, run_at, attempts FROM jobs ORDER BY id DESC LIMIT 500)
        SELECT queue, extract(epoch FROM now() - min(due_at))::float8
        FROM recent
        WHERE run_at <= now() OR attempts > 0
        GROUP BY queue""")
    return {q: s for q, s in rows}
