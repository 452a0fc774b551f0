# RULE: correct
def oldest_waiting(conn):
    """{queue: seconds since its oldest unfinished, due-or-tried job became due}."""
    rows = conn.execute("""
        WITH waiting AS (
            SELECT j.queue AS q, now() - j.due_at AS late
            FROM jobs AS j
            WHERE NOT (j.run_at > now() AND j.attempts = 0)
        )
        SELECT q, max(extract(epoch FROM late)) FROM waiting GROUP BY q""").fetchall()
    return {q: float(s) for q, s in rows}
