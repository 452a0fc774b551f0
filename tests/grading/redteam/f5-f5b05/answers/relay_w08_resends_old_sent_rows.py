# oldest-first (unsent rows only): also re-publishes rows sent more than 10 minutes ago, "in case the broker lost them"
def relay_batch(conn, publish, limit=10):
    with conn.transaction():
        rows = conn.execute(
            "SELECT id, event_id, subject, payload FROM outbox "
            "WHERE sent_at IS NULL OR sent_at < now() - interval '10 minutes' "
            "ORDER BY id LIMIT %s FOR UPDATE SKIP LOCKED", [limit]).fetchall()
        for row_id, event_id, subject, payload in rows:
            publish(subject, payload, msg_id=str(event_id))
        conn.execute(sql.query("outbox", "mark_sent"), {"ids": [row[0] for row in rows]})
    return len(rows)
