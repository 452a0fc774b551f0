# expect: wrong
# rule: who-waits: "due exactly now included" - run_at < now() leaves out a job due at this very instant
def oldest_waiting(conn):
    """{queue: seconds since its oldest unfinished, due-or-tried job became due}."""
    rows = conn.execute("SELECT queue, extract(epoch FROM now() - min(due_at))::float8 FROM jobs "
                        "WHERE run_at < now() OR attempts > 0 GROUP BY queue")
    return {q: s for q, s in rows}
