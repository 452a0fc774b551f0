# WRONG (one-transaction): the status change commits on its own, then the outbox row in a second one
def cancel_order(conn, order_id):
    row = conn.execute("UPDATE orders SET status = 'cancelled' WHERE id = %s AND status = 'placed' "
                       "RETURNING id", [order_id]).fetchone()
    if row is None:
        return False
    with conn.transaction():
        outbox.add(conn, CANCELLED, {"order_id": order_id})
    return True
