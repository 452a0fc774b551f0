# EXERCISE: 05.relay
# EXPECT: wrong
# RULE: mark-sent (marks every unsent row up to the last id, claimed or not)
def relay_batch(conn, publish, limit=10):
    with conn.transaction():
        rows = conn.execute("""SELECT id, event_id, subject, payload FROM outbox WHERE sent_at IS NULL ORDER BY id LIMIT %s FOR UPDATE SKIP LOCKED""", [limit]).fetchall()
        for row_id, event_id, subject, payload in rows:
            publish(subject, payload, msg_id=str(event_id))
        if rows:
            conn.execute("UPDATE outbox SET sent_at = now() WHERE sent_at IS NULL AND id <= %s", [rows[-1][0]])
    return len(rows)
