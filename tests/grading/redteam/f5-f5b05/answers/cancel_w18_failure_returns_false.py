# one-transaction (a failure reaches the caller): any database error in the cancel is caught and answered with False ("could not cancel"); no exception reaches the caller
import psycopg


def cancel_order(conn, order_id):
    try:
        with conn.transaction():
            row = conn.execute(
                "UPDATE orders SET status = 'cancelled' WHERE id = %s AND status = 'placed' RETURNING id",
                [order_id]).fetchone()
            if row:
                outbox.add(conn, CANCELLED, {"order_id": order_id})
    except psycopg.Error:
        return False
    return row is not None
