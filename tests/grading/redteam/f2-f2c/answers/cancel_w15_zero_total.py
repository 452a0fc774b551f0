# WRONG (only-if-placed: change nothing else): a cancelled order is set to cost nothing
def cancel_order(conn, order_id):
    with conn.transaction():
        row = conn.execute("UPDATE orders SET status = 'cancelled', items = '[]' WHERE id = %s AND status = 'placed' "
                           "RETURNING id", [order_id]).fetchone()
        if row:
            outbox.add(conn, CANCELLED, {"order_id": order_id})
    return row is not None
