# WRONG (returns): returns True whatever happened ("the request was handled")
def cancel_order(conn, order_id):
    with conn.transaction():
        row = conn.execute("UPDATE orders SET status = 'cancelled' WHERE id = %s AND status = 'placed' "
                           "RETURNING id", [order_id]).fetchone()
        if row:
            outbox.add(conn, CANCELLED, {"order_id": order_id})
    return True
