# Rule broken: announce (payload {"order_id": <the id>}): the id written as a string.
def cancel_order(conn, order_id):
    with conn.transaction():
        row = conn.execute("UPDATE orders SET status = 'cancelled' WHERE id = %s AND status = 'placed' "
                           "RETURNING id::text", [order_id]).fetchone()
        if row is not None:
            outbox.add(conn, CANCELLED, {"order_id": row[0]})
    return row is not None
