# correct (arguable: rows are claimed one by one, not as one batch): claims one row at a time inside the one transaction, leaving out the rows it already holds (SKIP LOCKED does not skip its own), up to `limit`, publishing each as it is claimed
def relay_batch(conn, publish, limit=10):
    done = []
    with conn.transaction():
        while len(done) < limit:
            row = conn.execute(
                "SELECT id, event_id, subject, payload FROM outbox "
                "WHERE sent_at IS NULL AND id <> ALL(%s::bigint[]) "
                "ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED", [done]).fetchone()
            if row is None:
                break
            row_id, event_id, subject, payload = row
            publish(subject, payload, msg_id=str(event_id))
            done.append(row_id)
        conn.execute(sql.query("outbox", "mark_sent"), {"ids": done})
    return len(done)
