# WRONG (announce: ids, not data): the payload carries the order's data too
def cancel_order(conn, order_id):
    with conn.transaction():
        row = conn.execute("UPDATE orders SET status = 'cancelled' WHERE id = %s AND status = 'placed' "
                           "RETURNING id, customer_id, total_cents", [order_id]).fetchone()
        if row:
            outbox.add(conn, CANCELLED, {"order_id": order_id, "customer_id": row[1], "total_cents": row[2]})
    return row is not None
