# skip-locked: "only one relay at a time": LOCK TABLE outbox IN EXCLUSIVE MODE, then a plain claim: a second relay waits for the whole table instead of skipping
def relay_batch(conn, publish, limit=10):
    with conn.transaction():
        conn.execute("LOCK TABLE outbox IN EXCLUSIVE MODE")
        rows = conn.execute("SELECT id, event_id, subject, payload FROM outbox WHERE sent_at IS NULL "
                            "ORDER BY id LIMIT %s", [limit]).fetchall()
        for row_id, event_id, subject, payload in rows:
            publish(subject, payload, msg_id=str(event_id))
        conn.execute(sql.query("outbox", "mark_sent"), {"ids": [row[0] for row in rows]})
    return len(rows)
