# expect: correct
# rule: correct: due_at of each queue's oldest counted job from SQL, the age computed with Python's UTC clock
from datetime import datetime, timezone


def oldest_waiting(conn):
    """{queue: seconds since its oldest unfinished, due-or-tried job became due}."""
    rows = conn.execute("SELECT queue, min(due_at) FROM jobs WHERE run_at <= now() OR attempts > 0 "
                        "GROUP BY queue").fetchall()
    now = datetime.now(timezone.utc)
    return {queue: (now - first_due).total_seconds() for queue, first_due in rows}
