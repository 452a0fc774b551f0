# oldest-first (in id order): publishes the claimed batch sorted by event_id ("in event order"), which is a random uuid: not id order
def relay_batch(conn, publish, limit=10):
    with conn.transaction():
        rows = conn.execute(sql.query("outbox", "claim"), {"limit": limit}).fetchall()
        for row_id, event_id, subject, payload in sorted(rows, key=lambda r: str(r[1])):
            publish(subject, payload, msg_id=str(event_id))
        conn.execute(sql.query("outbox", "mark_sent"), {"ids": [row[0] for row in rows]})
    return len(rows)
