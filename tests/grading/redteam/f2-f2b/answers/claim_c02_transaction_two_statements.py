# correct | - | explicit transaction: SELECT ... FOR UPDATE SKIP LOCKED, then UPDATE; the lock holds until commit
def claim(conn, lease_s):
    with conn.transaction():
        row = conn.execute("""
            SELECT id, type, payload FROM jobs
            WHERE run_at <= now() AND NOT (locked_until IS NOT NULL AND locked_until >= now())
            ORDER BY run_at ASC
            FETCH FIRST 1 ROWS ONLY
            FOR UPDATE SKIP LOCKED""").fetchone()
        if row is not None:
            conn.execute("UPDATE jobs SET locked_until = now() + make_interval(secs => %s), "
                         "attempts = attempts + 1 WHERE id = %s", [lease_s, row[0]])
    return None if row is None else (row[0], row[1], row[2])
