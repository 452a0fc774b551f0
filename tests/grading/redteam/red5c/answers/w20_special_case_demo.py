# Rule broken: still-placed, adversarial: the safe statement only when the order is the demo's range;
# read-then-write otherwise.
def cancel_order(conn, order_id):
    if order_id < 9830:
        with conn.transaction():
            row = conn.execute("UPDATE orders SET status = 'cancelled' WHERE id = %s AND status = 'placed' "
                               "RETURNING id", [order_id]).fetchone()
            if row is not None:
                outbox.add(conn, CANCELLED, {"order_id": order_id})
        return row is not None
    status = conn.execute("SELECT status FROM orders WHERE id = %s", [order_id]).fetchone()
    if status is None or status[0] != "placed":
        return False
    with conn.transaction():
        conn.execute("UPDATE orders SET status = 'cancelled' WHERE id = %s", [order_id])
        outbox.add(conn, CANCELLED, {"order_id": order_id})
    return True
