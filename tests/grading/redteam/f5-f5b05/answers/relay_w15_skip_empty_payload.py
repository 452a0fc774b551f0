# oldest-first (publish each)/count: a row with an empty payload ({}) has "nothing to announce": it is marked sent without being published
def relay_batch(conn, publish, limit=10):
    with conn.transaction():
        rows = conn.execute(sql.query("outbox", "claim"), {"limit": limit}).fetchall()
        published = 0
        for row_id, event_id, subject, payload in rows:
            if not payload:
                continue
            publish(subject, payload, msg_id=str(event_id))
            published += 1
        conn.execute(sql.query("outbox", "mark_sent"), {"ids": [row[0] for row in rows]})
    return published
