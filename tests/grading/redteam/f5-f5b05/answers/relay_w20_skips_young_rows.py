# oldest-first (every unsent row): leaves rows younger than 200 ms for the next call "so a long transaction can commit its older id first" (from outbox.py's caveat); a batch called right after the rows were written publishes nothing
def relay_batch(conn, publish, limit=10):
    with conn.transaction():
        rows = conn.execute(
            "SELECT id, event_id, subject, payload FROM outbox "
            "WHERE sent_at IS NULL AND created_at < now() - interval '200 milliseconds' "
            "ORDER BY id LIMIT %s FOR UPDATE SKIP LOCKED", [limit]).fetchall()
        for row_id, event_id, subject, payload in rows:
            publish(subject, payload, msg_id=str(event_id))
        conn.execute(sql.query("outbox", "mark_sent"), {"ids": [row[0] for row in rows]})
    return len(rows)
