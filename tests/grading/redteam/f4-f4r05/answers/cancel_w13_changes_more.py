# exercise: 05.cancel_order
# kind: wrong
# rule: only-if-placed 'change nothing else' (also empties the order's items)
def cancel_order(conn, order_id):
    with conn.transaction():
        done = conn.execute("UPDATE orders SET status = 'cancelled', items = '[]' WHERE id = %s AND status = 'placed' "
                            "RETURNING id", [order_id]).fetchone()
        if done:
            outbox.add(conn, CANCELLED, {"order_id": order_id})
    return done is not None
