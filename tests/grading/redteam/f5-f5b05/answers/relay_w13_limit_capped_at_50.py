# oldest-first (up to `limit`): caps the batch at 50 rows ("a sane batch size"), whatever `limit` says
MAX_BATCH = 50


def relay_batch(conn, publish, limit=10):
    with conn.transaction():
        rows = conn.execute(sql.query("outbox", "claim"), {"limit": min(limit, MAX_BATCH)}).fetchall()
        for row_id, event_id, subject, payload in rows:
            publish(subject, payload, msg_id=str(event_id))
        conn.execute(sql.query("outbox", "mark_sent"), {"ids": [row[0] for row in rows]})
    return len(rows)
