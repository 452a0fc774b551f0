# Rule broken: only-if-placed ("change nothing else"): cancels the customer's other placed orders too
# (one announcement, for the one asked about).
def cancel_order(conn, order_id):
    with conn.transaction():
        rows = conn.execute(
            "UPDATE orders SET status = 'cancelled' WHERE status = 'placed' "
            "AND customer_id = (SELECT customer_id FROM orders WHERE id = %s) RETURNING id", [order_id]).fetchall()
        cancelled = any(r[0] == order_id for r in rows)
        if cancelled:
            outbox.add(conn, CANCELLED, {"order_id": order_id})
    return cancelled
