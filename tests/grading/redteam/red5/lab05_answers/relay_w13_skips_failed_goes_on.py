# EXERCISE: 05.relay
# EXPECT: wrong
# RULE: oldest-first (a failed row skipped, later rows go out before it)
def relay_batch(conn, publish, limit=10):
    sent = []
    with conn.transaction():
        rows = conn.execute(sql.query("outbox", "claim"), {"limit": limit}).fetchall()
        for row_id, event_id, subject, payload in rows:
            try:
                publish(subject, payload, msg_id=str(event_id))
            except Exception:
                continue
            sent.append(row_id)
        conn.execute(sql.query("outbox", "mark_sent"), {"ids": sent})
    return len(sent)
