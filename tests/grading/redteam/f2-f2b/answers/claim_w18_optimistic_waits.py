# wrong | no-wait | read, then a guarded UPDATE (retry if it lost): the UPDATE waits on a row another worker has locked
def claim(conn, lease_s):
    while True:
        row = conn.execute("""SELECT id, type, payload FROM jobs
            WHERE run_at <= now() AND (locked_until IS NULL OR locked_until < now())
            ORDER BY run_at LIMIT 1""").fetchone()
        if row is None:
            return None
        won = conn.execute("""UPDATE jobs SET locked_until = now() + make_interval(secs => %s), attempts = attempts + 1
            WHERE id = %s AND (locked_until IS NULL OR locked_until < now())""", [lease_s, row[0]]).rowcount
        if won:
            return row
