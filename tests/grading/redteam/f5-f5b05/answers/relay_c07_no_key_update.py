# correct (arguable: the rule names FOR UPDATE): FOR NO KEY UPDATE SKIP LOCKED, which conflicts with itself and with FOR UPDATE exactly where it matters here, so a second relay skips the rows just the same
def relay_batch(conn, publish, limit=10):
    with conn.transaction():
        batch = conn.execute(
            """SELECT id, event_id, subject, payload
               FROM outbox
               WHERE sent_at IS NULL
               ORDER BY id
               LIMIT %(n)s
               FOR NO KEY UPDATE SKIP LOCKED""", {"n": limit}).fetchall()
        for r in batch:
            publish(r[2], r[3], msg_id=str(r[1]))
        if batch:
            conn.execute("UPDATE outbox SET sent_at = now() WHERE id = ANY(%s)", [[r[0] for r in batch]])
    return len(batch)
