# kind: wrong
# rule: mark-sent (also rewrites the payload with a "published" flag: changes something else)
def relay_batch(conn, publish, limit=10):
    with conn.transaction():
        rows = conn.execute(sql.query("outbox", "claim"), {"limit": limit}).fetchall()
        for row_id, event_id, subject, payload in rows:
            publish(subject, payload, msg_id=str(event_id))
        conn.execute("UPDATE outbox SET sent_at = now(), payload = payload || '{\"published\": true}' "
                     "WHERE id = ANY(%s)", [[r[0] for r in rows]])
    return len(rows)
