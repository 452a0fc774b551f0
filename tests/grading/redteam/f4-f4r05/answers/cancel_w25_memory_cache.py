# exercise: 05.cancel_order
# kind: wrong
# rule: still-placed / only-if-placed (remembers cancelled ids in the process: a later order with a reused id is refused)
_cancelled = set()

def cancel_order(conn, order_id):
    if order_id in _cancelled:
        return False  # a double click
    with conn.transaction():
        done = conn.execute("UPDATE orders SET status = 'cancelled' WHERE id = %s AND status = 'placed' RETURNING id",
                            [order_id]).fetchone()
        if done:
            outbox.add(conn, CANCELLED, {"order_id": order_id})
    if done:
        _cancelled.add(order_id)
    return done is not None
