# oldest-first (in id order): the claim is a locked IN-subquery with ORDER BY/LIMIT inside, but the outer SELECT has no ORDER BY: rows come back in heap order, which is id order only until a row is updated
def relay_batch(conn, publish, limit=10):
    with conn.transaction():
        rows = conn.execute(
            "SELECT id, event_id, subject, payload FROM outbox WHERE id IN ("
            "  SELECT id FROM outbox WHERE sent_at IS NULL ORDER BY id LIMIT %s FOR UPDATE SKIP LOCKED)",
            [limit]).fetchall()
        for row_id, event_id, subject, payload in rows:
            publish(subject, payload, msg_id=str(event_id))
        conn.execute(sql.query("outbox", "mark_sent"), {"ids": [row[0] for row in rows]})
    return len(rows)
