# exercise: 05.relay
# kind: wrong
# rule: one-transaction / left-to-you 'not go on past it' (skips a failed row, publishes the rest, marks only the published)
def relay_batch(conn, publish, limit=10):
    with conn.transaction():
        rows = conn.execute(sql.query("outbox", "claim"), {"limit": limit}).fetchall()
        done = []
        for row_id, event_id, subject, payload in rows:
            try:
                publish(subject, payload, msg_id=str(event_id))
            except Exception:
                continue  # it stays unsent; the next batch tries it again
            done.append(row_id)
        conn.execute(sql.query("outbox", "mark_sent"), {"ids": done})
    return len(done)
