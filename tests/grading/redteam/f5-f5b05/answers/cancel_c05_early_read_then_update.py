# correct: reads the order first to answer False early (no transaction for an order that is not placed), then decides again in the UPDATE's own condition, so the early read never decides a cancellation
def cancel_order(conn, order_id):
    current = tiffin.order(conn, order_id)
    if current is None or current["status"] != "placed":
        return False
    with conn.transaction():
        done = conn.execute(
            "UPDATE orders SET status = 'cancelled' WHERE id = %s AND status = 'placed' RETURNING id",
            [order_id]).fetchone() is not None
        if done:
            outbox.add(conn, CANCELLED, {"order_id": order_id})
    return done
