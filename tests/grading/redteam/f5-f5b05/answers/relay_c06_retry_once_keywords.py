# correct: keyword arguments throughout, a failed publish is sent again once with the same msg_id (the rules allow "send that row again") and raises if it fails twice; ids marked with executemany, one per row, in the same transaction
def relay_batch(conn, publish, limit=10):
    def send(row):
        publish(subject=row[2], payload=row[3], msg_id=str(row[1]))

    with conn.transaction():
        claimed = conn.execute(sql.query("outbox", "claim"), {"limit": limit}).fetchall()
        for row in claimed:
            try:
                send(row)
            except Exception:
                send(row)   # once more; a second failure rolls the batch back
        with conn.cursor() as cur:
            cur.executemany("UPDATE outbox SET sent_at = now() WHERE id = %s", [(row[0],) for row in claimed])
    return len(claimed)
