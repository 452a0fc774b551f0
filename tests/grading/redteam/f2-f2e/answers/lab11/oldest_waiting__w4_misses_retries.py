def oldest_waiting(conn):
    rows = conn.execute("""
        SELECT queue, extract(epoch FROM now() - min(due_at)) FROM jobs
        WHERE run_at <= now() OR lease_token IS NOT NULL
        GROUP BY queue""").fetchall()
    return {q: float(s) for q, s in rows}
