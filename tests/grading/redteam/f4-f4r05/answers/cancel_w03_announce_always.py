# exercise: 05.cancel_order
# kind: wrong
# rule: announce (an outbox row even when it did not cancel)
def cancel_order(conn, order_id):
    with conn.transaction():
        done = conn.execute("UPDATE orders SET status = 'cancelled' WHERE id = %s AND status = 'placed' RETURNING id",
                            [order_id]).fetchone()
        outbox.add(conn, CANCELLED, {"order_id": order_id})
    return done is not None
