# expect: correct
# rule: correct: hint 3's final step word for word, dict built from the rows
def oldest_waiting(conn):
    """{queue: seconds since its oldest unfinished, due-or-tried job became due}."""
    rows = conn.execute("SELECT queue, extract(epoch FROM now() - min(due_at))::float8 FROM jobs "
                        "WHERE run_at <= now() OR attempts > 0 GROUP BY queue").fetchall()
    return {queue: seconds for queue, seconds in rows}
