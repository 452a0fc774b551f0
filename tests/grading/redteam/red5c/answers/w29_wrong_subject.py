# Rule broken: announce (subject CANCELLED): announced on the lab's "placed" subject by a slip.
def cancel_order(conn, order_id):
    with conn.transaction():
        row = conn.execute("UPDATE orders SET status = 'cancelled' WHERE id = %s AND status = 'placed' "
                           "RETURNING id", [order_id]).fetchone()
        if row is not None:
            outbox.add(conn, SUBJECT, {"order_id": order_id})
    return row is not None
