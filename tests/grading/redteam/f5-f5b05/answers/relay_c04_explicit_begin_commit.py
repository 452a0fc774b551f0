# correct: the transaction spelled out with BEGIN / COMMIT / ROLLBACK on the autocommit connection, msg_id passed positionally-equivalent via a variable, ids marked with IN (unnest)
def relay_batch(conn, publish, limit=10):
    conn.execute("BEGIN")
    try:
        rows = conn.execute(
            "SELECT id, event_id, subject, payload FROM outbox o WHERE o.sent_at IS NULL "
            "ORDER BY o.id ASC LIMIT %s FOR UPDATE SKIP LOCKED", (limit,)).fetchall()
        ids = []
        for row_id, event_id, subject, payload in rows:
            message_id = f"{event_id}"
            publish(subject, payload, msg_id=message_id)
            ids.append(row_id)
        if ids:
            conn.execute("UPDATE outbox SET sent_at = now() WHERE id IN (SELECT unnest(%s::bigint[]))", (ids,))
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    return len(ids)
