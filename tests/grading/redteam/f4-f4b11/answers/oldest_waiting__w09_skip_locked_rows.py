# expect: wrong
# rule: who-waits: reads the jobs FOR UPDATE SKIP LOCKED (copied from the claim), so a job whose row another session holds locked (being claimed or run) is not counted
def oldest_waiting(conn):
    """{queue: seconds since its oldest unfinished, due-or-tried job became due}."""
    rows = conn.execute("""
        SELECT queue, extract(epoch FROM now() - min(due_at))::float8
        FROM (SELECT queue, due_at FROM jobs
              WHERE run_at <= now() OR attempts > 0
              FOR UPDATE SKIP LOCKED) AS visible
        GROUP BY queue""").fetchall()
    conn.commit() if not conn.autocommit else None
    return {q: s for q, s in rows}
