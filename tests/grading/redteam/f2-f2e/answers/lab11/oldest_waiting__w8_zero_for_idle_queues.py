def oldest_waiting(conn):
    rows = conn.execute("""
        SELECT queue, coalesce(extract(epoch FROM now() - min(due_at) FILTER (WHERE attempts > 0 OR run_at <= now())), 0)
        FROM jobs GROUP BY queue""").fetchall()
    return {q: float(s) for q, s in rows}
