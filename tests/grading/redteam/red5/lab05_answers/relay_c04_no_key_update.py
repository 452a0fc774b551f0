# EXERCISE: 05.relay
# EXPECT: correct
# RULE: correct (FOR NO KEY UPDATE SKIP LOCKED, a mark per row)
def relay_batch(conn, publish, limit=10):
    count = 0
    with conn.transaction():
        cur = conn.execute("SELECT id, event_id, subject, payload FROM outbox WHERE sent_at IS NULL "
                           "ORDER BY id LIMIT %s FOR NO KEY UPDATE SKIP LOCKED", (limit,))
        for row in cur.fetchall():
            publish(row[2], row[3], msg_id=str(row[1]))
            conn.execute("UPDATE outbox SET sent_at = now() WHERE id = %s", (row[0],))
            count += 1
    return count
