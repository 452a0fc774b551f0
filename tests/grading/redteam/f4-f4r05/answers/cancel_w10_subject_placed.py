# exercise: 05.cancel_order
# kind: wrong
# rule: announce (subject SUBJECT, the 'placed' one, instead of CANCELLED)
def cancel_order(conn, order_id):
    with conn.transaction():
        done = conn.execute("UPDATE orders SET status = 'cancelled' WHERE id = %s AND status = 'placed' RETURNING id",
                            [order_id]).fetchone()
        if done:
            outbox.add(conn, SUBJECT, {"order_id": order_id})
    return done is not None
