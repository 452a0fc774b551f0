# Correct: hint 3's final step, word for word.
def cancel_order(conn, order_id):
    """Cancel the order if it is still placed, and add its outbox row, in one transaction; True if it
    cancelled it."""
    with conn.transaction():
        cancelled = conn.execute(
            "UPDATE orders SET status = 'cancelled' WHERE id = %s AND status = 'placed' RETURNING id",
            [order_id]).fetchone()
        if cancelled:
            outbox.add(conn, CANCELLED, {"order_id": order_id})
    return cancelled is not None
