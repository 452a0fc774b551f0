# correct: claims and marks in one CTE, then publishes (in id order), all in one transaction: a failed publish rolls the marks back
def relay_batch(conn, publish, limit=10):
    with conn.transaction():
        rows = conn.execute("""
            WITH batch AS (
                SELECT id FROM outbox WHERE sent_at IS NULL ORDER BY id LIMIT %s FOR UPDATE SKIP LOCKED)
            UPDATE outbox o SET sent_at = now() FROM batch WHERE o.id = batch.id
            RETURNING o.id, o.event_id, o.subject, o.payload""", [limit]).fetchall()
        for _, event_id, subject, payload in sorted(rows):
            publish(subject, payload, msg_id=str(event_id))
    return len(rows)
