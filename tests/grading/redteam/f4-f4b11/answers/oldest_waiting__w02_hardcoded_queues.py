# expect: wrong
# rule: per-queue: only the two queues of the demo ('default', 'newsletter') are ever looked at
def oldest_waiting(conn):
    """{queue: seconds since its oldest unfinished, due-or-tried job became due}."""
    result = {}
    for name in ("default", "newsletter"):
        (seconds,) = conn.execute(
            "SELECT extract(epoch FROM now() - min(due_at))::float8 FROM jobs "
            "WHERE queue = %s AND (run_at <= now() OR attempts > 0)", (name,)).fetchone()
        if seconds is not None:
            result[name] = seconds
    return result
