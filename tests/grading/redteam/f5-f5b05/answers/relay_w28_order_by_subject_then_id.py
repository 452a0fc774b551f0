# oldest-first (in id order): claims and publishes ORDER BY subject, id ("order only matters per subject"): across subjects a newer row goes before an older one, and the batch is not the oldest rows
def relay_batch(conn, publish, limit=10):
    with conn.transaction():
        rows = conn.execute(
            "SELECT id, event_id, subject, payload FROM outbox WHERE sent_at IS NULL "
            "ORDER BY subject, id LIMIT %s FOR UPDATE SKIP LOCKED", [limit]).fetchall()
        for row_id, event_id, subject, payload in rows:
            publish(subject, payload, msg_id=str(event_id))
        conn.execute(sql.query("outbox", "mark_sent"), {"ids": [row[0] for row in rows]})
    return len(rows)
