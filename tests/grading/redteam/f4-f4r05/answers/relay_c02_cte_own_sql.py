# exercise: 05.relay
# kind: correct
# rule: correct (own SQL, a CTE claim, dict rows, mark per row)
from psycopg.rows import dict_row

CLAIM = '''
WITH batch AS (
    SELECT o.id FROM outbox AS o
    WHERE o.sent_at IS NULL
    ORDER BY o.id
    LIMIT %(n)s
    FOR UPDATE OF o SKIP LOCKED
)
SELECT o.id, o.event_id, o.subject, o.payload
FROM outbox AS o JOIN batch USING (id)
ORDER BY o.id
'''

def relay_batch(conn, publish, limit=10):
    count = 0
    with conn.transaction():
        with conn.cursor(row_factory=dict_row) as cur:
            batch = cur.execute(CLAIM, {"n": limit}).fetchall()
            for message in batch:
                publish(message["subject"], message["payload"], msg_id=f"{message['event_id']}")
                count += 1
            for message in batch:
                cur.execute("UPDATE outbox SET sent_at = clock_timestamp() WHERE id = %s", (message["id"],))
    return count
