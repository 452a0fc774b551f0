# WRONG (announce): the order id as a string in the payload
def cancel_order(conn, order_id):
    with conn.transaction():
        row = conn.execute("UPDATE orders SET status = 'cancelled' WHERE id = %s AND status = 'placed' "
                           "RETURNING id", [order_id]).fetchone()
        if row:
            outbox.add(conn, CANCELLED, {"order_id": str(order_id)})
    return row is not None
