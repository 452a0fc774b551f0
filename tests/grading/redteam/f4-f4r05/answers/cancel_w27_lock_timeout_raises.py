# exercise: 05.cancel_order
# kind: wrong
# rule: still-placed (lock_timeout 100 ms, error to the caller: an order the kitchen holds then rolls back is not cancelled)
def cancel_order(conn, order_id):
    with conn.transaction():
        conn.execute("SET LOCAL lock_timeout = '100ms'")
        done = conn.execute("UPDATE orders SET status = 'cancelled' WHERE id = %s AND status = 'placed' RETURNING id",
                            [order_id]).fetchone()
        if done:
            outbox.add(conn, CANCELLED, {"order_id": order_id})
    return done is not None
