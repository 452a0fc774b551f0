# expect: wrong
# rule: from-due-at (measures from run_at, which moves at every claim and retry)
def oldest_waiting(conn):
    rows = conn.execute("""SELECT queue, extract(epoch FROM now() - min(run_at))::float8
        FROM jobs WHERE run_at <= now() OR attempts > 0 GROUP BY queue""").fetchall()
    return dict(rows)
