# exercise: 05.relay
# kind: wrong
# rule: mark-sent (marks every unsent row, beyond the batch)
def relay_batch(conn, publish, limit=10):
    with conn.transaction():
        rows = conn.execute(sql.query("outbox", "claim"), {"limit": limit}).fetchall()
        for row_id, event_id, subject, payload in rows:
            publish(subject, payload, msg_id=str(event_id))
        conn.execute("UPDATE outbox SET sent_at = now() WHERE sent_at IS NULL")
    return len(rows)
