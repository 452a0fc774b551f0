# still-placed: FOR UPDATE NOWAIT in a savepoint: when another session holds the row it answers False at once, even when that session then rolls back and the order is still placed
import psycopg


def cancel_order(conn, order_id):
    with conn.transaction():
        try:
            with conn.transaction():
                row = conn.execute("SELECT status FROM orders WHERE id = %s FOR UPDATE NOWAIT",
                                   [order_id]).fetchone()
        except psycopg.errors.LockNotAvailable:
            return False
        if row is None or row[0] != "placed":
            return False
        conn.execute("UPDATE orders SET status = 'cancelled' WHERE id = %s", [order_id])
        outbox.add(conn, CANCELLED, {"order_id": order_id})
    return True
