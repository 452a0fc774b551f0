# exercise: 05.relay
# kind: wrong
# rule: one-transaction (on a failed publish stops, but marks the whole batch sent)
def relay_batch(conn, publish, limit=10):
    with conn.transaction():
        rows = conn.execute(sql.query("outbox", "claim"), {"limit": limit}).fetchall()
        published = 0
        for row_id, event_id, subject, payload in rows:
            try:
                publish(subject, payload, msg_id=str(event_id))
            except Exception:
                break
            published += 1
        conn.execute(sql.query("outbox", "mark_sent"), {"ids": [r[0] for r in rows]})
    return published
