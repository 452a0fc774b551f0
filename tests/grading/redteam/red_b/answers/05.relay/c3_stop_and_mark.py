# kind: correct
# rule: correct (on a failed publish: stop there, mark the rows that went out, return their count -- allowed)
def relay_batch(conn, publish, limit=10):
    sent = []
    with conn.transaction():
        batch = conn.execute(sql.query("outbox", "claim"), {"limit": limit}).fetchall()
        for row in batch:
            try:
                publish(row[2], row[3], msg_id=str(row[1]))
            except Exception as error:
                print(f"row {row[0]} not published ({error}); stopping here")
                break
            sent.append(row[0])
        if sent:
            conn.execute(sql.query("outbox", "mark_sent"), {"ids": sent})
    return len(sent)
