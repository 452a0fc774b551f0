# EXERCISE: 05.relay
# EXPECT: correct
# RULE: correct (dict rows, a cursor, mark with unnest)
from psycopg.rows import dict_row

def relay_batch(conn, publish, limit=10):
    with conn.transaction(), conn.cursor(row_factory=dict_row) as cur:
        cur.execute(sql.query("outbox", "claim"), {"limit": limit})
        rows = cur.fetchall()
        for r in sorted(rows, key=lambda r: r["id"]):
            publish(r["subject"], r["payload"], msg_id=str(r["event_id"]))
        cur.execute("UPDATE outbox SET sent_at = now() FROM unnest(%s::bigint[]) AS done(id) WHERE outbox.id = done.id",
                    [[r["id"] for r in rows]])
    return len(rows)
