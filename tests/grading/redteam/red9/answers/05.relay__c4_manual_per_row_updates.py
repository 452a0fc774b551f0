# correct: BEGIN/COMMIT by hand, its own SELECT, one UPDATE per row
def relay_batch(conn, publish, limit=10):
    conn.execute("BEGIN")
    try:
        cur = conn.execute("SELECT id, event_id, subject, payload FROM outbox WHERE sent_at IS NULL "
                           "ORDER BY id ASC LIMIT %(n)s FOR UPDATE SKIP LOCKED", {"n": limit})
        batch = cur.fetchall()
        for row in batch:
            publish(row[2], row[3], msg_id=f"{row[1]}")
        for row in batch:
            conn.execute("UPDATE outbox SET sent_at = now() WHERE id = %s", [row[0]])
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    return len(batch)
