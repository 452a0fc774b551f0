# correct (a choice the rules leave open): stop at a failed publish, mark the rows that went out
def relay_batch(conn, publish, limit=10):
    sent = []
    with conn.transaction():
        for row_id, event_id, subject, payload in conn.execute(sql.query("outbox", "claim"), {"limit": limit}).fetchall():
            try:
                publish(subject, payload, msg_id=str(event_id))
            except Exception:
                break
            sent.append(row_id)
        conn.execute("UPDATE outbox SET sent_at = clock_timestamp() WHERE id = ANY(%s)", [sent])
    return len(sent)
