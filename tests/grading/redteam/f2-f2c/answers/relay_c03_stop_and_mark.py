# CORRECT: on a failed publish, stops there and marks the rows that went out (allowed by the statement)
def relay_batch(conn, publish, limit=10):
    published = []
    with conn.transaction():
        with conn.cursor() as cur:
            cur.execute("SELECT id, event_id, subject, payload FROM outbox WHERE sent_at IS NULL "
                        "ORDER BY id LIMIT %s FOR UPDATE SKIP LOCKED", (limit,))
            claimed = cur.fetchall()
        for ident, event, subject, payload in claimed:
            try:
                publish(subject, payload, msg_id=str(event))
            except Exception:
                break
            published.append(ident)
        if published:
            conn.execute("UPDATE outbox SET sent_at = now() WHERE id = ANY(%s::bigint[])", [published])
    return len(published)
