# WRONG (adversarial: correct only within one process, on the first call): double clicks remembered in
# Python, the status read then written
_cancelled = set()


def cancel_order(conn, order_id):
    if order_id in _cancelled:
        return False
    with conn.transaction():
        status = conn.execute("SELECT status FROM orders WHERE id = %s", [order_id]).fetchone()
        if not status or status[0] != "placed":
            return False
        conn.execute("UPDATE orders SET status = 'cancelled' WHERE id = %s AND status <> 'preparing'", [order_id])
        outbox.add(conn, CANCELLED, {"order_id": order_id})
    _cancelled.add(order_id)
    return True
