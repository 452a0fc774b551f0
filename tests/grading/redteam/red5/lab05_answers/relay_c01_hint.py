# EXERCISE: 05.relay
# EXPECT: correct
# RULE: correct (hint 4 word for word)
def relay_batch(conn, publish, limit=10):
    """Claim up to `limit` unsent outbox rows, publish them with their event_id as message id, mark them
    sent — in one transaction. Return how many were published."""
    with conn.transaction():
        rows = conn.execute(sql.query("outbox", "claim"), {"limit": limit}).fetchall()
        for row_id, event_id, subject, payload in rows:
            publish(subject, payload, msg_id=str(event_id))
        conn.execute(sql.query("outbox", "mark_sent"), {"ids": [row[0] for row in rows]})
    return len(rows)
