# correct: dict rows on a cursor of its own, each row marked right after its ack (clock_timestamp) in the same transaction; on a failed publish it stops there and commits what went out (the rules leave that free), returning how many were published
from psycopg.rows import dict_row


def relay_batch(conn, publish, limit=10):
    published = 0
    with conn.transaction(), conn.cursor(row_factory=dict_row) as cur:
        batch = cur.execute(sql.query("outbox", "claim"), {"limit": limit}).fetchall()
        for row in batch:
            try:
                publish(row["subject"], row["payload"], msg_id=str(row["event_id"]))
            except Exception as error:
                print(f"publish of outbox row {row['id']} failed ({error}); it stays unsent")
                break
            cur.execute("UPDATE outbox SET sent_at = clock_timestamp() WHERE id = %s", [row["id"]])
            published += 1
    return published
