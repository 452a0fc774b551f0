def oldest_waiting(conn):
    [age] = conn.execute("SELECT extract(epoch FROM now() - min(due_at)) FROM jobs "
                         "WHERE attempts > 0 OR run_at <= now()").fetchone()
    queues = [q for (q,) in conn.execute("SELECT DISTINCT queue FROM jobs WHERE attempts > 0 OR run_at <= now()")]
    return {q: float(age) for q in queues}
