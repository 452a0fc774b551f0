# EXERCISE: 05.relay
# EXPECT: correct
# RULE: correct (own SQL, clock_timestamp, named params)
CLAIM = """
SELECT o.id, o.event_id, o.subject, o.payload
FROM outbox AS o
WHERE o.sent_at IS NULL
ORDER BY o.id ASC
LIMIT %(n)s
FOR UPDATE OF o SKIP LOCKED
"""

def relay_batch(conn, publish, limit=10):
    with conn.transaction():
        batch = conn.execute(CLAIM, {"n": limit}).fetchall()
        for _id, event_id, subject, payload in batch:
            publish(subject, payload, msg_id=f"{event_id}")
        if batch:
            conn.execute("UPDATE outbox SET sent_at = clock_timestamp() WHERE id = ANY(%(ids)s)",
                         {"ids": [r[0] for r in batch]})
        return len(batch)
