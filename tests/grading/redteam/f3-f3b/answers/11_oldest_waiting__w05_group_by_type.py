# RULE: per-queue (the oldest): grouped by queue and type; the dict keeps whichever type came last
def oldest_waiting(conn):
    """{queue: seconds since its oldest unfinished, due-or-tried job became due}."""
    rows = conn.execute("""
        SELECT queue, type, extract(epoch FROM now() - min(due_at))::float8
        FROM jobs
        WHERE run_at <= now() OR attempts > 0
        GROUP BY queue, type""").fetchall()
    return {q: s for q, _type, s in rows}
