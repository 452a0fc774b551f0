# expect: wrong
# rule: not-yet-due: lists every queue, then one statement per queue with `or 0.0` - a queue holding only jobs planned for later appears as 0.0 instead of being left out
def oldest_waiting(conn):
    """{queue: seconds since its oldest unfinished, due-or-tried job became due}."""
    queues = [q for (q,) in conn.execute("SELECT DISTINCT queue FROM jobs")]
    result = {}
    for q in queues:
        (secs,) = conn.execute(
            "SELECT extract(epoch FROM now() - min(due_at))::float8 FROM jobs "
            "WHERE queue = %s AND (run_at <= now() OR attempts > 0)", (q,)).fetchone()
        result[q] = secs or 0.0
    return result
