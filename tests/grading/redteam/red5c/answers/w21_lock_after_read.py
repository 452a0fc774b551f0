# Rule broken: still-placed. Reads the status first, then locks the row in the transaction, but decides
# on the first read.
def cancel_order(conn, order_id):
    row = conn.execute("SELECT status FROM orders WHERE id = %s", [order_id]).fetchone()
    if row is None or row[0] != "placed":
        return False
    with conn.transaction():
        conn.execute("SELECT 1 FROM orders WHERE id = %s FOR UPDATE", [order_id])
        conn.execute("UPDATE orders SET status = 'cancelled' WHERE id = %s", [order_id])
        outbox.add(conn, CANCELLED, {"order_id": order_id})
    return True
