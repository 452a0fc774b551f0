# Rule broken: returns. Returns "is it cancelled now?": True for an order that was cancelled already
# (Ana's second click), though this call cancelled nothing.
def cancel_order(conn, order_id):
    with conn.transaction():
        row = conn.execute("UPDATE orders SET status = 'cancelled' WHERE id = %s AND status = 'placed' "
                           "RETURNING id", [order_id]).fetchone()
        if row is not None:
            outbox.add(conn, CANCELLED, {"order_id": order_id})
    now = conn.execute("SELECT status FROM orders WHERE id = %s", [order_id]).fetchone()
    return now is not None and now[0] == "cancelled"
