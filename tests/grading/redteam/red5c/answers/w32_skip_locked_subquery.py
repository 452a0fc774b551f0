# Rule broken: still-placed: one UPDATE, but its subquery skips a locked row, so an order someone holds
# (the kitchen, then rolled back) is never cancelled.
def cancel_order(conn, order_id):
    with conn.transaction():
        row = conn.execute(
            "UPDATE orders SET status = 'cancelled' WHERE id = (SELECT id FROM orders WHERE id = %s "
            "AND status = 'placed' FOR UPDATE SKIP LOCKED) RETURNING id", [order_id]).fetchone()
        if row is not None:
            outbox.add(conn, CANCELLED, {"order_id": order_id})
    return row is not None
