# Rule broken: one-transaction ("a failure reaches the caller"): database errors become False.
import psycopg


def cancel_order(conn, order_id):
    try:
        with conn.transaction():
            row = conn.execute("UPDATE orders SET status = 'cancelled' WHERE id = %s AND status = 'placed' "
                               "RETURNING id", [order_id]).fetchone()
            if row is not None:
                outbox.add(conn, CANCELLED, {"order_id": order_id})
    except psycopg.DatabaseError:
        return False
    return row is not None
