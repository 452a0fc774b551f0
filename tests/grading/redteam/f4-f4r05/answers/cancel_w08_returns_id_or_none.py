# exercise: 05.cancel_order
# kind: wrong
# rule: returns (the order id or None, not True/False)
def cancel_order(conn, order_id):
    with conn.transaction():
        done = conn.execute("UPDATE orders SET status = 'cancelled' WHERE id = %s AND status = 'placed' RETURNING id",
                            [order_id]).fetchone()
        if done:
            outbox.add(conn, CANCELLED, {"order_id": order_id})
    return done[0] if done else None
