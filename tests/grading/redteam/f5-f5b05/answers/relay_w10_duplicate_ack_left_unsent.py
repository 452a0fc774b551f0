# mark-sent/count: a row JetStream acks as a duplicate is neither counted nor marked sent, so it is published again on every call
def relay_batch(conn, publish, limit=10):
    with conn.transaction():
        rows = conn.execute(sql.query("outbox", "claim"), {"limit": limit}).fetchall()
        sent = []
        for row_id, event_id, subject, payload in rows:
            ack = publish(subject, payload, msg_id=str(event_id))
            if getattr(ack, "duplicate", False):
                continue   # JetStream already had it: not published by us
            sent.append(row_id)
        conn.execute(sql.query("outbox", "mark_sent"), {"ids": sent})
    return len(sent)
