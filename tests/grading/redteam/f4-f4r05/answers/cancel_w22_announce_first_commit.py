# exercise: 05.cancel_order
# kind: wrong
# rule: one-transaction (outbox row committed first, then the UPDATE in its own statement)
def cancel_order(conn, order_id):
    status = conn.execute("SELECT status FROM orders WHERE id = %s", [order_id]).fetchone()
    if not status or status[0] != "placed":
        return False
    with conn.transaction():
        outbox.add(conn, CANCELLED, {"order_id": order_id})
    done = conn.execute("UPDATE orders SET status = 'cancelled' WHERE id = %s AND status = 'placed' RETURNING id",
                        [order_id]).fetchone()
    return done is not None
