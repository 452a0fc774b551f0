# exercise: 05.cancel_order
# kind: wrong
# rule: one-transaction 'a failure reaches the caller' (any error swallowed: returns False)
def cancel_order(conn, order_id):
    try:
        with conn.transaction():
            done = conn.execute("UPDATE orders SET status = 'cancelled' WHERE id = %s AND status = 'placed' "
                                "RETURNING id", [order_id]).fetchone()
            if done:
                outbox.add(conn, CANCELLED, {"order_id": order_id})
        return done is not None
    except Exception as error:
        print("could not cancel:", error)
        return False
