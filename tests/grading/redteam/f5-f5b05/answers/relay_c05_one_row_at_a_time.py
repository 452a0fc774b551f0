# correct? (written as correct; it is not: SKIP LOCKED does not skip rows this transaction itself holds, so the next LIMIT 1 claim returns row 1 again) claims one row at a time (LIMIT 1 FOR UPDATE SKIP LOCKED) inside the one transaction, up to `limit` rows
def relay_batch(conn, publish, limit=10):
    done = []
    with conn.transaction():
        while len(done) < limit:
            row = conn.execute(sql.query("outbox", "claim"), {"limit": 1}).fetchone()
            if row is None:
                break
            row_id, event_id, subject, payload = row
            publish(subject, payload, msg_id=str(event_id))
            done.append(row_id)
        conn.execute(sql.query("outbox", "mark_sent"), {"ids": done})
    return len(done)
