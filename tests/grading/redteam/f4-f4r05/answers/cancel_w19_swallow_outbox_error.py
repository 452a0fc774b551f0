# exercise: 05.cancel_order
# kind: wrong
# rule: one-transaction (an outbox.add failure is swallowed: cancelled, never announced)
def cancel_order(conn, order_id):
    with conn.transaction():
        done = conn.execute("UPDATE orders SET status = 'cancelled' WHERE id = %s AND status = 'placed' RETURNING id",
                            [order_id]).fetchone()
        if done:
            try:
                with conn.transaction():
                    outbox.add(conn, CANCELLED, {"order_id": order_id})
            except Exception as error:
                print("announcement failed:", error)
    return done is not None
