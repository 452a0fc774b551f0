# oldest-first (publish each once): publishes every row twice, the second time "to confirm the broker has it" (expects a duplicate ack); with a broker that forgot the id, or a recorder, every row goes out twice
def relay_batch(conn, publish, limit=10):
    with conn.transaction():
        rows = conn.execute(sql.query("outbox", "claim"), {"limit": limit}).fetchall()
        for row_id, event_id, subject, payload in rows:
            publish(subject, payload, msg_id=str(event_id))
            publish(subject, payload, msg_id=str(event_id))   # confirm: should come back as a duplicate
        conn.execute(sql.query("outbox", "mark_sent"), {"ids": [row[0] for row in rows]})
    return len(rows)
