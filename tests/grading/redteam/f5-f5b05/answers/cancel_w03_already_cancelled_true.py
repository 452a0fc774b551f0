# returns: "idempotent" cancel button: an order already cancelled returns True (the second click is told it worked), though this call cancelled nothing
def cancel_order(conn, order_id):
    with conn.transaction():
        row = conn.execute(
            "UPDATE orders SET status = 'cancelled' WHERE id = %s AND status = 'placed' RETURNING id",
            [order_id]).fetchone()
        if row:
            outbox.add(conn, CANCELLED, {"order_id": order_id})
            return True
        status = conn.execute("SELECT status FROM orders WHERE id = %s", [order_id]).fetchone()
    return status is not None and status[0] == "cancelled"
