# expect: wrong
# rule: oldest-in-seconds: truncated to whole seconds (::int after floor) - 119.9 s reads 119, a 0.6 s wait reads 0
def oldest_waiting(conn):
    """{queue: seconds since its oldest unfinished, due-or-tried job became due}."""
    rows = conn.execute("SELECT queue, floor(extract(epoch FROM now() - min(due_at)))::int FROM jobs "
                        "WHERE run_at <= now() OR attempts > 0 GROUP BY queue")
    return {q: s for q, s in rows}
