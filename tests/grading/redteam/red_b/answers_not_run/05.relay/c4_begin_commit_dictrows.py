# kind: correct
# rule: correct (explicit BEGIN/COMMIT, dict rows, a CTE for the mark)
from psycopg.rows import dict_row


def relay_batch(conn, publish, limit=10):
    conn.execute("BEGIN")
    try:
        with conn.cursor(row_factory=dict_row) as cur:
            rows = cur.execute("WITH unsent AS (SELECT id, event_id, subject, payload FROM outbox "
                               "WHERE sent_at IS NULL ORDER BY id LIMIT %s FOR UPDATE SKIP LOCKED) "
                               "SELECT * FROM unsent ORDER BY id", [limit]).fetchall()
        for r in rows:
            publish(r["subject"], r["payload"], msg_id=f"{r['event_id']}")
        conn.execute("UPDATE outbox SET sent_at = now() FROM unnest(%s::bigint[]) AS done(id) "
                     "WHERE outbox.id = done.id", [[r["id"] for r in rows]])
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")
    return len(rows)
