# Rule broken: still-placed: waits at most 200 ms for a locked order, then says it cannot be cancelled.
import psycopg.errors


def cancel_order(conn, order_id):
    try:
        with conn.transaction():
            conn.execute("SET LOCAL lock_timeout = '200ms'")
            row = conn.execute("UPDATE orders SET status = 'cancelled' WHERE id = %s AND status = 'placed' "
                               "RETURNING id", [order_id]).fetchone()
            if row is not None:
                outbox.add(conn, CANCELLED, {"order_id": order_id})
    except psycopg.errors.LockNotAvailable:
        return False
    return row is not None
