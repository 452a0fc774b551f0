# WRONG (announce): adds the outbox row whether or not it cancelled
def cancel_order(conn, order_id):
    with conn.transaction():
        row = conn.execute("UPDATE orders SET status = 'cancelled' WHERE id = %s AND status = 'placed' "
                           "RETURNING id", [order_id]).fetchone()
        outbox.add(conn, CANCELLED, {"order_id": order_id})
    return row is not None
