# exercise: 05.relay
# kind: correct
# rule: correct (on a failed publish: stop there, mark those that went out, return their count)
def relay_batch(conn, publish, limit=10):
    sent = []
    with conn.transaction():
        claimed = conn.execute(sql.query("outbox", "claim"), {"limit": limit}).fetchall()
        for row in claimed:
            try:
                publish(row[2], row[3], msg_id=str(row[1]))
            except Exception:
                break
            sent.append(row[0])
        if sent:
            conn.execute("UPDATE outbox SET sent_at = now() WHERE id = ANY(%s::bigint[])", [sent])
    return len(sent)
