# announce: the payload's order_id is a string ("9812"), not the id
def cancel_order(conn, order_id):
    with conn.transaction():
        row = conn.execute("UPDATE orders SET status = 'cancelled' WHERE id = %s AND status = 'placed' "
                           "RETURNING id::text", [order_id]).fetchone()
        if row:
            outbox.add(conn, CANCELLED, {"order_id": row[0]})
    return row is not None
