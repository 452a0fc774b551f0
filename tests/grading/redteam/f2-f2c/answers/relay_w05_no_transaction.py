# WRONG (one-transaction / skip-locked): no transaction: on the autocommit connection the claim's locks
# are gone as soon as the SELECT returns, and each mark commits on its own
def relay_batch(conn, publish, limit=10):
    rows = conn.execute(sql.query("outbox", "claim"), {"limit": limit}).fetchall()
    for row_id, event_id, subject, payload in rows:
        publish(subject, payload, msg_id=str(event_id))
        conn.execute(sql.query("outbox", "mark_sent"), {"ids": [row_id]})
    return len(rows)
