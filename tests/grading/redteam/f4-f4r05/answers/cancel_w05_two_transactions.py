# exercise: 05.cancel_order
# kind: wrong
# rule: one-transaction (UPDATE commits on its own, the outbox row in a second transaction)
def cancel_order(conn, order_id):
    done = conn.execute("UPDATE orders SET status = 'cancelled' WHERE id = %s AND status = 'placed' RETURNING id",
                        [order_id]).fetchone()
    if done is None:
        return False
    with conn.transaction():
        outbox.add(conn, CANCELLED, {"order_id": order_id})
    return True
