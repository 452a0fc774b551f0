# Correct: FOR NO KEY UPDATE (the lock the kitchen's UPDATE takes too), split into small helpers.
PLACED, CANCELLED_STATUS = "placed", "cancelled"


def _locked_status(conn, order_id):
    row = conn.execute("SELECT o.status FROM orders o WHERE o.id = %s FOR NO KEY UPDATE", (order_id,)).fetchone()
    return None if row is None else row[0]


def _cancel(conn, order_id):
    conn.execute("UPDATE orders SET status = %s WHERE id = %s", (CANCELLED_STATUS, order_id))
    outbox.add(conn, CANCELLED, dict(order_id=order_id))


def cancel_order(conn, order_id):
    with conn.transaction():
        if _locked_status(conn, order_id) != PLACED:
            return False
        _cancel(conn, order_id)
    return True
