# Rule broken: one-transaction. The change commits, then the outbox row in a transaction of its own.
def cancel_order(conn, order_id):
    row = conn.execute("UPDATE orders SET status = 'cancelled' WHERE id = %s AND status = 'placed' "
                       "RETURNING id", [order_id]).fetchone()
    if row is None:
        return False
    with conn.transaction():
        outbox.add(conn, CANCELLED, {"order_id": order_id})
    return True
