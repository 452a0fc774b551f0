# Rule broken: returns: falls off the end (None) when it does not cancel.
def cancel_order(conn, order_id):
    with conn.transaction():
        row = conn.execute("UPDATE orders SET status = 'cancelled' WHERE id = %s AND status = 'placed' "
                           "RETURNING id", [order_id]).fetchone()
        if row is not None:
            outbox.add(conn, CANCELLED, {"order_id": order_id})
            return True
