# still-placed/returns: SELECT ... FOR SHARE then UPDATE by id: two clicks both hold the share lock and deadlock, so one click raises instead of returning False
def cancel_order(conn, order_id):
    with conn.transaction():
        row = conn.execute("SELECT status FROM orders WHERE id = %s FOR SHARE", [order_id]).fetchone()
        if row is None or row[0] != "placed":
            return False
        conn.execute("UPDATE orders SET status = 'cancelled' WHERE id = %s", [order_id])
        outbox.add(conn, CANCELLED, {"order_id": order_id})
    return True
