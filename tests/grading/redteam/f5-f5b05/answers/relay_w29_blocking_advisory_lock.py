# skip-locked: "one relay at a time, to keep order" (outbox.py's advice) enforced with a blocking pg_advisory_xact_lock: a second relay running this code waits for the first's whole batch instead of skipping its rows
def relay_batch(conn, publish, limit=10):
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(hashtext('outbox relay'))")
        rows = conn.execute(sql.query("outbox", "claim"), {"limit": limit}).fetchall()
        for row_id, event_id, subject, payload in rows:
            publish(subject, payload, msg_id=str(event_id))
        conn.execute(sql.query("outbox", "mark_sent"), {"ids": [row[0] for row in rows]})
    return len(rows)
