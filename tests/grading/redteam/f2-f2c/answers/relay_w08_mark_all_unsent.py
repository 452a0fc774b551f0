# WRONG (mark-sent): marks every unsent row sent, not only the claimed ones
def relay_batch(conn, publish, limit=10):
    with conn.transaction():
        rows = conn.execute(sql.query("outbox", "claim"), {"limit": limit}).fetchall()
        for row_id, event_id, subject, payload in rows:
            publish(subject, payload, msg_id=str(event_id))
        if rows:
            conn.execute("UPDATE outbox SET sent_at = now() WHERE sent_at IS NULL AND id <= %s", [rows[-1][0]])
    return len(rows)
