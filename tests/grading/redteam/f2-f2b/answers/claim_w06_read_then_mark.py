# wrong | each-once | SELECT ... SKIP LOCKED, then UPDATE by id, in two autocommit statements
def claim(conn, lease_s):
    row = conn.execute("""
        SELECT id, type, payload FROM jobs
        WHERE run_at <= now() AND (locked_until IS NULL OR locked_until < now())
        ORDER BY run_at LIMIT 1 FOR UPDATE SKIP LOCKED""").fetchone()
    if row is None:
        return None
    conn.execute("UPDATE jobs SET locked_until = now() + make_interval(secs => %s), attempts = attempts + 1 "
                 "WHERE id = %s", [lease_s, row[0]])
    return row
