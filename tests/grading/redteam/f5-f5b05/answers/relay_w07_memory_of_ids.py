# oldest-first (publish each once) / msg-id idea: remembers row ids published by this process and marks a row with a remembered id sent WITHOUT publishing it; a new outbox (ids from 1 again) loses its rows
_published_ids = set()


def relay_batch(conn, publish, limit=10):
    with conn.transaction():
        rows = conn.execute(sql.query("outbox", "claim"), {"limit": limit}).fetchall()
        count = 0
        for row_id, event_id, subject, payload in rows:
            if row_id in _published_ids:   # went out before a crash: do not send it twice
                continue
            publish(subject, payload, msg_id=str(event_id))
            _published_ids.add(row_id)
            count += 1
        conn.execute(sql.query("outbox", "mark_sent"), {"ids": [row[0] for row in rows]})
    return count
