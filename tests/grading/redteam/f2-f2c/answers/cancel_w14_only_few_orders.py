# WRONG (adversarial: works for small ids only): the race-free statement only for the first orders,
# the demo's read-then-write for the rest
def cancel_order(conn, order_id):
    with conn.transaction():
        if order_id < 9830:
            row = conn.execute("UPDATE orders SET status = 'cancelled' WHERE id = %s AND status = 'placed' "
                               "RETURNING id", [order_id]).fetchone()
            if row:
                outbox.add(conn, CANCELLED, {"order_id": order_id})
            return row is not None
        status = conn.execute("SELECT status FROM orders WHERE id = %s", [order_id]).fetchone()
        if status is None or status[0] != "placed":
            return False
        conn.execute("UPDATE orders SET status = 'cancelled' WHERE id = %s", [order_id])
        outbox.add(conn, CANCELLED, {"order_id": order_id})
    return True
