# Correct: REPEATABLE READ, retried on a serialization failure (the retry sees the kitchen's change).
import psycopg.errors


def cancel_order(conn, order_id):
    while True:
        try:
            with conn.transaction():
                conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
                row = conn.execute("SELECT status FROM orders WHERE id = %s", [order_id]).fetchone()
                if row is None or row[0] != "placed":
                    return False
                conn.execute("UPDATE orders SET status = 'cancelled' WHERE id = %s", [order_id])
                outbox.add(conn, CANCELLED, {"order_id": order_id})
                return True
        except psycopg.errors.SerializationFailure:
            continue
