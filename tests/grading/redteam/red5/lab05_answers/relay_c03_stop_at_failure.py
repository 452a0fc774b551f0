# EXERCISE: 05.relay
# EXPECT: correct
# RULE: correct (stops at a failed publish, marks what went out, returns that count)
def relay_batch(conn, publish, limit=10):
    published = []
    with conn.transaction():
        for row_id, event_id, subject, payload in conn.execute(sql.query("outbox", "claim"), {"limit": limit}).fetchall():
            try:
                publish(subject, payload, msg_id=str(event_id))
            except Exception as error:
                print(f"row {row_id} not published ({error}); it stays unsent")
                break
            published.append(row_id)
        if published:
            conn.execute(sql.query("outbox", "mark_sent"), {"ids": published})
    return len(published)
