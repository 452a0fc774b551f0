# exercise: 05.relay
# kind: wrong
# rule: one-transaction (a failed publish is swallowed and its row marked sent anyway)
def relay_batch(conn, publish, limit=10):
    with conn.transaction():
        rows = conn.execute(sql.query("outbox", "claim"), {"limit": limit}).fetchall()
        for row_id, event_id, subject, payload in rows:
            try:
                publish(subject, payload, msg_id=str(event_id))
            except Exception as error:
                print("publish failed, moving on:", error)
        conn.execute(sql.query("outbox", "mark_sent"), {"ids": [r[0] for r in rows]})
    return len(rows)
