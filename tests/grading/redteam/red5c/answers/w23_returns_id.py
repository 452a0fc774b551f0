# Rule broken: returns (True / False): returns the cancelled order's id, or None.
def cancel_order(conn, order_id):
    with conn.transaction():
        row = conn.execute("UPDATE orders SET status = 'cancelled' WHERE id = %s AND status = 'placed' "
                           "RETURNING id", [order_id]).fetchone()
        if row is not None:
            outbox.add(conn, CANCELLED, {"order_id": order_id})
    return row and row[0]
