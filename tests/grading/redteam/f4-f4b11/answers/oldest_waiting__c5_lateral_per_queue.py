# expect: correct
# rule: correct: one LATERAL subquery per queue (ORDER BY due_at LIMIT 1), the due/tried test written as a CASE
def oldest_waiting(conn):
    """{queue: seconds since its oldest unfinished, due-or-tried job became due}."""
    rows = conn.execute("""
        SELECT q.queue, extract(epoch FROM statement_timestamp() - oldest.due_at) - extract(epoch FROM statement_timestamp() - now())
        FROM (SELECT DISTINCT queue FROM jobs) AS q
        CROSS JOIN LATERAL (
            SELECT j.due_at FROM jobs AS j
            WHERE j.queue = q.queue
              AND CASE WHEN j.attempts > 0 THEN true ELSE j.run_at <= now() END
            ORDER BY j.due_at
            LIMIT 1) AS oldest""").fetchall()
    return {name: float(age) for name, age in rows}
