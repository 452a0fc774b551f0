# wrong | row | returns (id, payload, type)
def claim(conn, lease_s):
    sql = """
        UPDATE jobs SET locked_until = now() + make_interval(secs => %s), attempts = attempts + 1
        WHERE id = (SELECT id FROM jobs
                    WHERE run_at <= now() AND (locked_until IS NULL OR locked_until < now())
                    ORDER BY run_at LIMIT 1 FOR UPDATE SKIP LOCKED)
        RETURNING id, payload, type"""
    return conn.execute(sql, [lease_s]).fetchone()
