# msg-id: "namespaces" the message id with the subject (msg_id=f"{subject}:{event_id}"), not str(event_id): the course's relay's copies of the same row are not dropped
def relay_batch(conn, publish, limit=10):
    with conn.transaction():
        rows = conn.execute(sql.query("outbox", "claim"), {"limit": limit}).fetchall()
        for row_id, event_id, subject, payload in rows:
            publish(subject, payload, msg_id=f"{subject}:{event_id}")
        conn.execute(sql.query("outbox", "mark_sent"), {"ids": [row[0] for row in rows]})
    return len(rows)
