# correct: hint 3's final answer, word for word
def cancel_order(conn, order_id):
    with conn.transaction():
        cancelled = conn.execute(
            "UPDATE orders SET status = 'cancelled' WHERE id = %s AND status = 'placed' RETURNING id",
            [order_id]).fetchone()
        if cancelled:
            outbox.add(conn, CANCELLED, {"order_id": order_id})
    return cancelled is not None
