# oldest-first/skip-locked (arguable): a global advisory lock makes the relay a singleton: a second relay returns 0 at once, even when unlocked unsent rows wait beyond the first relay's batch
def relay_batch(conn, publish, limit=10):
    with conn.transaction():
        if not conn.execute("SELECT pg_try_advisory_xact_lock(50505)").fetchone()[0]:
            return 0
        rows = conn.execute(sql.query("outbox", "claim"), {"limit": limit}).fetchall()
        for row_id, event_id, subject, payload in rows:
            publish(subject, payload, msg_id=str(event_id))
        conn.execute(sql.query("outbox", "mark_sent"), {"ids": [row[0] for row in rows]})
    return len(rows)
