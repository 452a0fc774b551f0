# exercise: 05.relay
# kind: wrong
# rule: skip-locked / oldest-first 'claim up to limit' (locks every unsent row, publishes limit of them: a second relay finds nothing)
def relay_batch(conn, publish, limit=10):
    with conn.transaction():
        rows = conn.execute("SELECT id, event_id, subject, payload FROM outbox WHERE sent_at IS NULL "
                            "ORDER BY id FOR UPDATE SKIP LOCKED").fetchall()[:limit]
        for row_id, event_id, subject, payload in rows:
            publish(subject, payload, msg_id=str(event_id))
        conn.execute(sql.query("outbox", "mark_sent"), {"ids": [r[0] for r in rows]})
    return len(rows)
