def oldest_waiting(conn):
    rows = conn.execute("""
        SELECT queue, extract(epoch FROM now() - min(due_at)) FROM jobs
        WHERE run_at <= now()
        GROUP BY queue""").fetchall()
    return {q: float(s) for q, s in rows}
