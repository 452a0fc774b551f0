# correct: msg_id passed positionally (publish's third parameter), rows unpacked by index, ids marked with the course's statement only when there are any
def relay_batch(conn, publish, limit=10):
    with conn.transaction():
        claimed = conn.execute(sql.query("outbox", "claim"), {"limit": limit}).fetchall()
        ids = []
        for row in claimed:
            publish(row[2], row[3], str(row[1]))
            ids.append(row[0])
        if ids:
            conn.execute(sql.query("outbox", "mark_sent"), {"ids": ids})
        return len(ids)
