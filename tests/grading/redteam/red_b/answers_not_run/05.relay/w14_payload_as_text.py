# kind: wrong
# rule: oldest-first / publish each (publishes the payload as a JSON string, not the payload)
import json


def relay_batch(conn, publish, limit=10):
    with conn.transaction():
        rows = conn.execute(sql.query("outbox", "claim"), {"limit": limit}).fetchall()
        for row_id, event_id, subject, payload in rows:
            publish(subject, json.dumps(payload), msg_id=str(event_id))
        conn.execute(sql.query("outbox", "mark_sent"), {"ids": [r[0] for r in rows]})
    return len(rows)
