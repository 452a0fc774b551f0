# WRONG (one-transaction): a failed publish is skipped; the rows after it go out and all the ones that
# went out are marked (the failed row stays unsent, but the relay went on past it: order broken)
def relay_batch(conn, publish, limit=10):
    with conn.transaction():
        rows = conn.execute(sql.query("outbox", "claim"), {"limit": limit}).fetchall()
        sent = []
        for row_id, event_id, subject, payload in rows:
            try:
                publish(subject, payload, msg_id=str(event_id))
            except Exception:
                continue
            sent.append(row_id)
        conn.execute(sql.query("outbox", "mark_sent"), {"ids": sent})
    return len(sent)
