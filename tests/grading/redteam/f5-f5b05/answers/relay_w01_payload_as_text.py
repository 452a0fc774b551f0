# oldest-first/publish: publishes the payload as its JSON text (payload::text), not the row's payload
def relay_batch(conn, publish, limit=10):
    with conn.transaction():
        rows = conn.execute(
            "SELECT id, event_id, subject, payload::text FROM outbox WHERE sent_at IS NULL "
            "ORDER BY id LIMIT %s FOR UPDATE SKIP LOCKED", [limit]).fetchall()
        for row_id, event_id, subject, payload in rows:
            publish(subject, payload, msg_id=str(event_id))
        conn.execute("UPDATE outbox SET sent_at = now() WHERE id = ANY(%s)", [[r[0] for r in rows]])
    return len(rows)
