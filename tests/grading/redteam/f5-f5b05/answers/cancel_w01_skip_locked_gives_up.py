# still-placed: lab 03's claim shape, FOR UPDATE SKIP LOCKED: when the kitchen (or anyone) holds the row, the cancel returns False and leaves it placed, even if the kitchen then rolls back
def cancel_order(conn, order_id):
    with conn.transaction():
        row = conn.execute(
            "UPDATE orders SET status = 'cancelled' WHERE id = ("
            "  SELECT id FROM orders WHERE id = %s AND status = 'placed' FOR UPDATE SKIP LOCKED"
            ") RETURNING id", [order_id]).fetchone()
        if row:
            outbox.add(conn, CANCELLED, {"order_id": order_id})
    return row is not None
