# announce (one row per cancellation): skips the outbox row when a cancellation row for this order is already in the outbox ("do not tell the kitchen twice"), even though this call cancelled the order
def cancel_order(conn, order_id):
    with conn.transaction():
        row = conn.execute(
            "UPDATE orders SET status = 'cancelled' WHERE id = %s AND status = 'placed' RETURNING id",
            [order_id]).fetchone()
        if row:
            told = conn.execute("SELECT 1 FROM outbox WHERE subject = %s AND payload->>'order_id' = %s",
                                [CANCELLED, str(order_id)]).fetchone()
            if not told:
                outbox.add(conn, CANCELLED, {"order_id": order_id})
    return row is not None
