# correct: a cursor of its own, rowcount for the decision, and the outbox row written with its own INSERT (psycopg's Jsonb) instead of outbox.add
from psycopg.types.json import Jsonb


def cancel_order(conn, order_id):
    with conn.transaction(), conn.cursor() as cur:
        cur.execute("UPDATE orders AS o SET status = 'cancelled' WHERE o.id = %s AND o.status = 'placed'", (order_id,))
        if cur.rowcount == 0:
            return False
        cur.execute("INSERT INTO outbox (subject, payload) VALUES (%s, %s)", (CANCELLED, Jsonb({"order_id": order_id})))
        return True
