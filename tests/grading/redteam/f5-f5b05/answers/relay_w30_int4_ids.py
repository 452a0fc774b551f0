# mark-sent (wrong type): marks with id = ANY(%s::int[]): once the outbox's bigint ids pass 2^31-1 the mark raises, every batch rolls back, and the relay republishes the same rows forever
def relay_batch(conn, publish, limit=10):
    with conn.transaction():
        rows = conn.execute(sql.query("outbox", "claim"), {"limit": limit}).fetchall()
        for row_id, event_id, subject, payload in rows:
            publish(subject, payload, msg_id=str(event_id))
        conn.execute("UPDATE outbox SET sent_at = now() WHERE id = ANY(%s::int[])", [[r[0] for r in rows]])
    return len(rows)
