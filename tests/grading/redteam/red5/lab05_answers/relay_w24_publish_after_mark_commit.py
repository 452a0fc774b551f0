# EXERCISE: 05.relay
# EXPECT: wrong
# RULE: one-transaction (marked and committed before publishing: a crash loses them)
def relay_batch(conn, publish, limit=10):
    with conn.transaction():
        rows = conn.execute(sql.query("outbox", "claim"), {"limit": limit}).fetchall()
        conn.execute(sql.query("outbox", "mark_sent"), {"ids": [row[0] for row in rows]})
    for row_id, event_id, subject, payload in rows:
        publish(subject, payload, msg_id=str(event_id))
    return len(rows)
