# skip-locked: FOR SHARE SKIP LOCKED: two relays running this code both take the same rows (share locks do not conflict) and both publish them
def relay_batch(conn, publish, limit=10):
    with conn.transaction():
        rows = conn.execute(
            "SELECT id, event_id, subject, payload FROM outbox WHERE sent_at IS NULL "
            "ORDER BY id LIMIT %s FOR SHARE SKIP LOCKED", [limit]).fetchall()
        for row_id, event_id, subject, payload in rows:
            publish(subject, payload, msg_id=str(event_id))
        conn.execute(sql.query("outbox", "mark_sent"), {"ids": [row[0] for row in rows]})
    return len(rows)
