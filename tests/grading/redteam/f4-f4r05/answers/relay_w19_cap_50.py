# exercise: 05.relay
# kind: wrong
# rule: oldest-first (limit capped at 50: correct on small limits only)
def relay_batch(conn, publish, limit=10):
    with conn.transaction():
        rows = conn.execute(sql.query("outbox", "claim"), {"limit": min(limit, 50)}).fetchall()
        for row_id, event_id, subject, payload in rows:
            publish(subject, payload, msg_id=str(event_id))
        conn.execute(sql.query("outbox", "mark_sent"), {"ids": [r[0] for r in rows]})
    return len(rows)
