# exercise: 05.relay
# kind: correct
# rule: correct (explicit BEGIN/COMMIT/ROLLBACK, sorted in Python)
def relay_batch(conn, publish, limit=10):
    conn.execute("BEGIN")
    try:
        rows = conn.execute(
            "SELECT id, event_id, subject, payload FROM outbox WHERE sent_at IS NULL "
            "ORDER BY id LIMIT %s FOR UPDATE SKIP LOCKED", (limit,)).fetchall()
        rows.sort(key=lambda r: r[0])
        for _id, eid, subj, body in rows:
            publish(subj, body, msg_id=str(eid))
        if rows:
            conn.execute("UPDATE outbox SET sent_at = now() WHERE id IN (" + ",".join(["%s"] * len(rows)) + ")",
                         [r[0] for r in rows])
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")
    return len(rows)
