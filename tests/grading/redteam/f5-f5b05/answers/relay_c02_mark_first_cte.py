# correct: claim and mark in one statement (a CTE with FOR UPDATE SKIP LOCKED, then UPDATE ... RETURNING), publish in id order after, all in one transaction: a failed publish raises and rolls the marks back
def relay_batch(conn, publish, limit=10):
    with conn.transaction():
        marked = conn.execute(
            """
            WITH batch AS (
                SELECT id FROM outbox
                WHERE sent_at IS NULL
                ORDER BY id
                LIMIT %(limit)s
                FOR UPDATE SKIP LOCKED
            )
            UPDATE outbox o SET sent_at = now()
            FROM batch
            WHERE o.id = batch.id
            RETURNING o.id, o.event_id, o.subject, o.payload
            """, {"limit": limit}).fetchall()
        for _id, event_id, subject, payload in sorted(marked, key=lambda r: r[0]):
            publish(subject, payload, msg_id=str(event_id))
    return len(marked)
