# wrong | empty-list | returns None when nothing is ready
def claim_batch(conn, limit, lease_s):
    sql = """
        UPDATE jobs SET locked_until = now() + make_interval(secs => %s), attempts = attempts + 1
        WHERE id = ANY(ARRAY(SELECT id FROM jobs WHERE run_at <= now() AND (locked_until IS NULL OR locked_until < now()) ORDER BY run_at LIMIT %s FOR UPDATE SKIP LOCKED))
        RETURNING id, type, payload"""
    rows = conn.execute(sql, [lease_s, limit]).fetchall()
    return rows or None
