# exercise: 05.relay
# kind: wrong
# rule: oldest-first 'publish each once' (remembers row ids published in this process; a new outbox's row 1 is marked sent unpublished)
_published = set()

def relay_batch(conn, publish, limit=10):
    with conn.transaction():
        rows = conn.execute(sql.query("outbox", "claim"), {"limit": limit}).fetchall()
        for row_id, event_id, subject, payload in rows:
            if row_id in _published:
                continue  # went out already (a relay restarted mid-batch)
            publish(subject, payload, msg_id=str(event_id))
            _published.add(row_id)
        conn.execute(sql.query("outbox", "mark_sent"), {"ids": [r[0] for r in rows]})
    return len(rows)
