# still-placed/returns/announce: one UPDATE with CASE that keeps other statuses, then "cancelled?" read from RETURNING: an order already cancelled (a double click) returns True and gets a second outbox row
def cancel_order(conn, order_id):
    with conn.transaction():
        row = conn.execute(
            "UPDATE orders SET status = CASE WHEN status = 'placed' THEN 'cancelled' ELSE status END "
            "WHERE id = %s RETURNING status", [order_id]).fetchone()
        cancelled = row is not None and row[0] == "cancelled"
        if cancelled:
            outbox.add(conn, CANCELLED, {"order_id": order_id})
    return cancelled
