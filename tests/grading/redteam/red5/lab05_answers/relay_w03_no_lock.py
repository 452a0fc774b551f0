# EXERCISE: 05.relay
# EXPECT: wrong
# RULE: skip-locked (no lock: a second relay publishes them too)
def relay_batch(conn, publish, limit=10):
    with conn.transaction():
        rows = conn.execute("""SELECT id, event_id, subject, payload FROM outbox WHERE sent_at IS NULL ORDER BY id LIMIT %s""", [limit]).fetchall()
        for row_id, event_id, subject, payload in rows:
            publish(subject, payload, msg_id=str(event_id))
        conn.execute(sql.query("outbox", "mark_sent"), {"ids": [row[0] for row in rows]})
    return len(rows)
