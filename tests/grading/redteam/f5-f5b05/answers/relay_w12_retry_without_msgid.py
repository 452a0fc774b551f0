# msg-id: retries a failed publish once (allowed), but the retry goes out without msg_id, so JetStream cannot drop its copy
def relay_batch(conn, publish, limit=10):
    with conn.transaction():
        rows = conn.execute(sql.query("outbox", "claim"), {"limit": limit}).fetchall()
        for row_id, event_id, subject, payload in rows:
            try:
                publish(subject, payload, msg_id=str(event_id))
            except Exception:
                publish(subject, payload)   # one more try
        conn.execute(sql.query("outbox", "mark_sent"), {"ids": [row[0] for row in rows]})
    return len(rows)
