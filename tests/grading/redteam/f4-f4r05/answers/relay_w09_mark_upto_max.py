# exercise: 05.relay
# kind: wrong
# rule: mark-sent (marks ids up to the batch's max: rows another relay holds too)
def relay_batch(conn, publish, limit=10):
    with conn.transaction():
        rows = conn.execute(sql.query("outbox", "claim"), {"limit": limit}).fetchall()
        if not rows:
            return 0
        for row_id, event_id, subject, payload in rows:
            publish(subject, payload, msg_id=str(event_id))
        conn.execute("UPDATE outbox SET sent_at = now() WHERE sent_at IS NULL AND id <= %s",
                     [max(r[0] for r in rows)])
    return len(rows)
