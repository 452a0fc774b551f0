# wrong (race): reads the unsent rows without a lock, publishes, then marks only those still unsent: a second relay in between publishes the same rows
def relay_batch(conn, publish, limit=10):
    rows = conn.execute("SELECT id, event_id, subject, payload FROM outbox WHERE sent_at IS NULL "
                        "ORDER BY id LIMIT %s", [limit]).fetchall()
    with conn.transaction():
        for row_id, event_id, subject, payload in rows:
            publish(subject, payload, msg_id=str(event_id))
        done = conn.execute("UPDATE outbox SET sent_at = now() WHERE id = ANY(%s) AND sent_at IS NULL RETURNING id",
                            [[r[0] for r in rows]]).fetchall()
    return len(done)
