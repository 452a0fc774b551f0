# oldest-first (every unsent row): claims only rows whose subject is one of this lab's stream (lab05_orders.*); rows of any other subject are never published
def relay_batch(conn, publish, limit=10):
    with conn.transaction():
        rows = conn.execute(
            "SELECT id, event_id, subject, payload FROM outbox "
            "WHERE sent_at IS NULL AND subject LIKE 'lab05_orders.%%' "
            "ORDER BY id LIMIT %s FOR UPDATE SKIP LOCKED", [limit]).fetchall()
        for row_id, event_id, subject, payload in rows:
            publish(subject, payload, msg_id=str(event_id))
        conn.execute(sql.query("outbox", "mark_sent"), {"ids": [row[0] for row in rows]})
    return len(rows)
