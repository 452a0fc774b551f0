# count: when a publish fails it stops and marks the rows that went out (allowed), but returns how many it CLAIMED, not how many it published
def relay_batch(conn, publish, limit=10):
    with conn.transaction():
        rows = conn.execute(sql.query("outbox", "claim"), {"limit": limit}).fetchall()
        sent = []
        for row_id, event_id, subject, payload in rows:
            try:
                publish(subject, payload, msg_id=str(event_id))
            except Exception:
                break
            sent.append(row_id)
        conn.execute(sql.query("outbox", "mark_sent"), {"ids": sent})
    return len(rows)
