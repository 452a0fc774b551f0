# expect: correct
# rule: correct in behaviour (lab 03's "lock the row while you read it": SELECT ... FOR UPDATE SKIP LOCKED and UPDATE in one transaction)
from datetime import timedelta


def claim(conn, lease_s):
    """Lease the oldest ready job for lease_s seconds; return (id, type, payload), or None."""
    with conn.transaction():
        row = conn.execute("""
            SELECT id, type, payload FROM jobs
            WHERE run_at <= now() AND (locked_until IS NULL OR locked_until < now())
            ORDER BY run_at LIMIT 1 FOR UPDATE SKIP LOCKED""").fetchone()
        if row is not None:
            conn.execute("UPDATE jobs SET locked_until = now() + %s, attempts = attempts + 1 WHERE id = %s",
                         [timedelta(seconds=lease_s), row[0]])
    return row
