# expect: wrong
# rule: oldest-in-seconds (timedelta.seconds: drops the days)
def oldest_waiting(conn):
    rows = conn.execute("""SELECT queue, now() - min(due_at)
        FROM jobs WHERE run_at <= now() OR attempts > 0 GROUP BY queue""").fetchall()
    return {q: age.seconds + age.microseconds / 1e6 for q, age in rows}
