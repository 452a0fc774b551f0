# expect: wrong
# rule: oldest-in-seconds: takes the NEWEST due job (max(due_at)) - "the oldest job" confused with "the latest"
def oldest_waiting(conn):
    """{queue: seconds since its oldest unfinished, due-or-tried job became due}."""
    rows = conn.execute("SELECT queue, extract(epoch FROM now() - max(due_at))::float8 FROM jobs "
                        "WHERE run_at <= now() OR attempts > 0 GROUP BY queue")
    return {q: s for q, s in rows}
