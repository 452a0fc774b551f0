# count (arguable): a failed publish rolls the whole batch back (allowed) but is swallowed: returns 0 though it published the rows before the failure, and the caller never hears of the failure
def relay_batch(conn, publish, limit=10):
    try:
        with conn.transaction():
            rows = conn.execute(sql.query("outbox", "claim"), {"limit": limit}).fetchall()
            for row_id, event_id, subject, payload in rows:
                publish(subject, payload, msg_id=str(event_id))
            conn.execute(sql.query("outbox", "mark_sent"), {"ids": [row[0] for row in rows]})
    except Exception as error:
        print("relay batch failed, will retry:", error)
        return 0
    return len(rows)
