# only-if-placed (change nothing else): also deletes the order's pending send_receipt job ("no receipt for a cancelled order")
def cancel_order(conn, order_id):
    with conn.transaction():
        row = conn.execute(
            "UPDATE orders SET status = 'cancelled' WHERE id = %s AND status = 'placed' RETURNING id",
            [order_id]).fetchone()
        if row:
            conn.execute("DELETE FROM jobs WHERE type = 'send_receipt' AND payload->>'order_id' = %s",
                         [str(order_id)])
            outbox.add(conn, CANCELLED, {"order_id": order_id})
    return row is not None
