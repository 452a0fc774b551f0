# expect: wrong
# rule: who-waits (counts only the jobs ready to be claimed: the retrying ones are left out)
def oldest_waiting(conn):
    rows = conn.execute("""SELECT queue, extract(epoch FROM now() - min(due_at))::float8
        FROM jobs WHERE run_at <= now() AND lease_token IS NULL GROUP BY queue""").fetchall()
    return dict(rows)
