# wrong (one-transaction): claim, publish and mark each commit on their own (autocommit): the claim's locks end at once
def relay_batch(conn, publish, limit=10):
    rows = conn.execute(sql.query("outbox", "claim"), {"limit": limit}).fetchall()
    for row_id, event_id, subject, payload in rows:
        publish(subject, payload, msg_id=str(event_id))
    conn.execute(sql.query("outbox", "mark_sent"), {"ids": [r[0] for r in rows]})
    return len(rows)
