# expect: correct
# rule: correct (one statement, from due_at)
def oldest_waiting(conn):
    rows = conn.execute("""
        SELECT queue, extract(epoch FROM now() - min(due_at))::float8
        FROM jobs WHERE run_at <= now() OR attempts > 0 GROUP BY queue""").fetchall()
    return {q: s for q, s in rows}
