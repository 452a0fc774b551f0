# expect: wrong
# rule: per-queue (the demo's two queue names, hard-coded)
def oldest_waiting(conn):
    result = {}
    for q in ("default", "newsletter"):
        (s,) = conn.execute("""SELECT extract(epoch FROM now() - min(due_at))::float8 FROM jobs
            WHERE queue = %s AND (run_at <= now() OR attempts > 0)""", (q,)).fetchone()
        if s is not None:
            result[q] = s
    return result
