# exercise: 05.cancel_order
# kind: wrong
# rule: still-placed / announce (a second click 'cancels' again: two outbox rows, True twice)
def cancel_order(conn, order_id):
    with conn.transaction():
        done = conn.execute("UPDATE orders SET status = 'cancelled' WHERE id = %s AND status IN ('placed', 'cancelled') "
                            "RETURNING id", [order_id]).fetchone()
        if done:
            outbox.add(conn, CANCELLED, {"order_id": order_id})
    return done is not None
