# oldest-first: claims the NEWEST `limit` rows (ORDER BY id DESC), then publishes them reversed, so each batch is in id order but the oldest rows wait
def relay_batch(conn, publish, limit=10):
    with conn.transaction():
        rows = conn.execute(
            "SELECT id, event_id, subject, payload FROM outbox WHERE sent_at IS NULL "
            "ORDER BY id DESC LIMIT %s FOR UPDATE SKIP LOCKED", [limit]).fetchall()
        rows.reverse()
        for row_id, event_id, subject, payload in rows:
            publish(subject, payload, msg_id=str(event_id))
        conn.execute(sql.query("outbox", "mark_sent"), {"ids": [row[0] for row in rows]})
    return len(rows)
