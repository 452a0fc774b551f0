# RULE: correct
def oldest_waiting(conn):
    """{queue: seconds since its oldest unfinished, due-or-tried job became due}."""
    cur = conn.execute("""
        SELECT DISTINCT ON (queue) queue, EXTRACT(EPOCH FROM (now() - due_at))
        FROM jobs
        WHERE attempts >= 1 OR run_at <= now()
        ORDER BY queue, due_at""")
    return {name: float(seconds) for name, seconds in cur}
