# exercise: 05.relay
# kind: wrong
# rule: skip-locked (no row lock: a second relay publishes the same rows)
def relay_batch(conn, publish, limit=10):
    with conn.transaction():
        rows = conn.execute("SELECT id, event_id, subject, payload FROM outbox WHERE sent_at IS NULL "
                            "ORDER BY id LIMIT %s", [limit]).fetchall()
        for row_id, event_id, subject, payload in rows:
            publish(subject, payload, msg_id=str(event_id))
        conn.execute("UPDATE outbox SET sent_at = now() WHERE id = ANY(%s)", [[r[0] for r in rows]])
    return len(rows)
