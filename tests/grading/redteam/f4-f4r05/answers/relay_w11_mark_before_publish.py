# exercise: 05.relay
# kind: wrong
# rule: one-transaction (marks sent and commits before publishing)
def relay_batch(conn, publish, limit=10):
    with conn.transaction():
        rows = conn.execute(sql.query("outbox", "claim"), {"limit": limit}).fetchall()
        conn.execute(sql.query("outbox", "mark_sent"), {"ids": [r[0] for r in rows]})
    for row_id, event_id, subject, payload in rows:
        publish(subject, payload, msg_id=str(event_id))
    return len(rows)
