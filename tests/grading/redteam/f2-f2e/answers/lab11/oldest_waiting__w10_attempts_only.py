def oldest_waiting(conn):
    rows = conn.execute("""
        SELECT queue, extract(epoch FROM now() - min(due_at)) FROM jobs
        WHERE attempts > 0 OR lease_token IS NULL AND run_at <= now() AND attempts = 0 AND due_at < now() - interval '1 second'
        GROUP BY queue""").fetchall()
    return {q: float(s) for q, s in rows}
