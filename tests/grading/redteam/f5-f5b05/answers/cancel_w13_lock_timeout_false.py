# still-placed: waits at most 50 ms for the order's row ("do not keep the customer waiting") and answers False on a timeout, though the holder may roll back and leave the order placed
import psycopg


def cancel_order(conn, order_id):
    with conn.transaction():
        conn.execute("SET LOCAL lock_timeout = '50ms'")
        try:
            with conn.transaction():
                row = conn.execute(
                    "UPDATE orders SET status = 'cancelled' WHERE id = %s AND status = 'placed' RETURNING id",
                    [order_id]).fetchone()
        except psycopg.errors.LockNotAvailable:
            return False
        if row:
            outbox.add(conn, CANCELLED, {"order_id": order_id})
    return row is not None
