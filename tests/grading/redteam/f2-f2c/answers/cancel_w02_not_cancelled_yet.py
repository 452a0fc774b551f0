# WRONG (only-if-placed): cancels anything not cancelled yet, a preparing order included
def cancel_order(conn, order_id):
    with conn.transaction():
        row = conn.execute("UPDATE orders SET status = 'cancelled' WHERE id = %s AND status <> 'cancelled' "
                           "RETURNING id", [order_id]).fetchone()
        if row:
            outbox.add(conn, CANCELLED, {"order_id": order_id})
    return row is not None
