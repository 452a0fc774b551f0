# RULE: oldest-in-seconds: datetime.utcnow().timestamp() reads UTC as local time: right only where the clock is UTC
import datetime


def oldest_waiting(conn):
    """{queue: seconds since its oldest unfinished, due-or-tried job became due}."""
    rows = conn.execute("""
        SELECT queue, min(due_at)
        FROM jobs
        WHERE run_at <= now() OR attempts > 0
        GROUP BY queue""").fetchall()
    now = datetime.datetime.utcnow().timestamp()
    return {q: now - due.timestamp() for q, due in rows}
