# kind: correct
# rule: correct (own SQL, marks each row right after its publish, in the same transaction)
def relay_batch(conn, publish, limit=10):
    published = 0
    with conn.transaction():
        cur = conn.execute(
            "SELECT o.id, o.event_id::text, o.subject, o.payload FROM outbox AS o "
            "WHERE o.sent_at IS NULL ORDER BY o.id ASC LIMIT %(n)s FOR UPDATE OF o SKIP LOCKED", {"n": limit})
        for row_id, event_id, subject, payload in cur.fetchall():
            publish(subject, payload, msg_id=event_id)
            conn.execute("UPDATE outbox SET sent_at = clock_timestamp() WHERE id = %s", [row_id])
            published += 1
    return published
