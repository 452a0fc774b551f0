# exercise: 05.relay
# kind: wrong
# rule: msg-id (no message id at all)
def relay_batch(conn, publish, limit=10):
    with conn.transaction():
        rows = conn.execute(sql.query("outbox", "claim"), {"limit": limit}).fetchall()
        for row_id, event_id, subject, payload in rows:
            publish(subject, payload)
        conn.execute(sql.query("outbox", "mark_sent"), {"ids": [r[0] for r in rows]})
    return len(rows)
