# exercise: 05.relay
# kind: wrong
# rule: one-transaction (each row marked in its own commit, after the batch's transaction)
def relay_batch(conn, publish, limit=10):
    with conn.transaction():
        rows = conn.execute(sql.query("outbox", "claim"), {"limit": limit}).fetchall()
        for row_id, event_id, subject, payload in rows:
            publish(subject, payload, msg_id=str(event_id))
    for row_id, *_ in rows:
        conn.execute("UPDATE outbox SET sent_at = now() WHERE id = %s", [row_id])
    return len(rows)
