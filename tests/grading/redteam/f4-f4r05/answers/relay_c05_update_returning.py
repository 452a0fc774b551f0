# exercise: 05.relay
# kind: correct
# rule: correct (mark with UPDATE ... RETURNING, count what it marked)
def relay_batch(conn, publish, limit=10):
    with conn.transaction():
        rows = conn.execute(sql.query("outbox", "claim"), {"limit": limit}).fetchall()
        ids = [r[0] for r in rows]
        for r in rows:
            publish(r[2], r[3], msg_id=str(r[1]))
        marked = conn.execute("UPDATE outbox SET sent_at = now() WHERE id = ANY(%s) RETURNING id", [ids]).fetchall()
        return len(marked)
