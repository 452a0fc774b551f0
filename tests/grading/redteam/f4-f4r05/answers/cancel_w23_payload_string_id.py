# exercise: 05.cancel_order
# kind: wrong
# rule: announce (payload's order_id as a string)
def cancel_order(conn, order_id):
    with conn.transaction():
        done = conn.execute("UPDATE orders SET status = 'cancelled' WHERE id = %s AND status = 'placed' RETURNING id",
                            [order_id]).fetchone()
        if done:
            outbox.add(conn, CANCELLED, {"order_id": str(order_id)})
    return done is not None
