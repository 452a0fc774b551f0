# expect: correct
# rule: correct (excludes the never-tried future jobs with NOT, DISTINCT ON for the oldest)
def oldest_waiting(conn):
    rows = conn.execute("""
        SELECT DISTINCT ON (queue) queue, extract(epoch FROM statement_timestamp() - due_at)
        FROM jobs
        WHERE NOT (run_at > now() AND attempts = 0)
        ORDER BY queue, due_at""").fetchall()
    return dict((q, float(s)) for q, s in rows)
