# CORRECT: a CTE for the claim, the mark by UPDATE ... RETURNING, count from its rows
def relay_batch(conn, publish, limit=10):
    with conn.transaction():
        rows = conn.execute("""
            WITH next AS (
                SELECT id, event_id, subject, payload FROM outbox
                WHERE sent_at IS NULL ORDER BY id LIMIT %s FOR UPDATE SKIP LOCKED)
            SELECT * FROM next ORDER BY id""", [limit]).fetchall()
        for _id, event_id, subject, payload in rows:
            publish(subject, payload, msg_id=str(event_id))
        marked = conn.execute("UPDATE outbox SET sent_at = now() WHERE id = ANY(%s) RETURNING id",
                              [[r[0] for r in rows]]).fetchall()
    return len(marked)
