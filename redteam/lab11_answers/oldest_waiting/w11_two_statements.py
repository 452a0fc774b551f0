# expect: wrong
# rule: not-yet-due (a race: the queues first, then each one's oldest; a queue emptied in between is listed as None)
def oldest_waiting(conn):
    queues = [q for (q,) in conn.execute(
        "SELECT DISTINCT queue FROM jobs WHERE run_at <= now() OR attempts > 0").fetchall()]
    result = {}
    for q in queues:
        (seconds,) = conn.execute("""SELECT extract(epoch FROM now() - min(due_at))::float8
            FROM jobs WHERE queue = %s AND (run_at <= now() OR attempts > 0)""", (q,)).fetchone()
        result[q] = seconds
    return result
