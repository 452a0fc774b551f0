# wrong (one-transaction: not go on past a failed row): retries a failed publish twice, then gives up on that row and goes on, marking it sent
def relay_batch(conn, publish, limit=10):
    with conn.transaction():
        rows = conn.execute(sql.query("outbox", "claim"), {"limit": limit}).fetchall()
        for row_id, event_id, subject, payload in rows:
            for attempt in range(3):
                try:
                    publish(subject, payload, msg_id=str(event_id))
                    break
                except Exception:
                    pass
        conn.execute(sql.query("outbox", "mark_sent"), {"ids": [r[0] for r in rows]})
    return len(rows)
