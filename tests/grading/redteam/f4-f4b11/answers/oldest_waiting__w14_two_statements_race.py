# expect: wrong
# rule: per-queue / not-yet-due: two statements (the queues someone waits in, then each queue's oldest due_at): a job acked or retried between them leaves {queue: None} or a value from another moment
def oldest_waiting(conn):
    """{queue: seconds since its oldest unfinished, due-or-tried job became due}."""
    waiting = [q for (q,) in conn.execute(
        "SELECT DISTINCT queue FROM jobs WHERE run_at <= now() OR attempts > 0")]
    result = {}
    for q in waiting:
        result[q] = conn.execute(
            "SELECT extract(epoch FROM now() - min(due_at))::float8 FROM jobs "
            "WHERE queue = %s AND (run_at <= now() OR attempts > 0)", (q,)).fetchone()[0]
    return result
