# expect: wrong
# rule: from-due-at (hint 3's final step word for word: it measures from created_at!)
def oldest_waiting(conn):
    rows = conn.execute("SELECT queue, extract(epoch FROM now() - min(created_at))::float8 FROM jobs WHERE run_at <= now() OR attempts > 0 GROUP BY queue").fetchall()
    return {q: s for q, s in rows}
