# still-placed: locks the row with SELECT ... FOR UPDATE, but on the autocommit connection before the transaction: the lock ends with that statement, and the UPDATE is by id alone
def cancel_order(conn, order_id):
    row = conn.execute("SELECT status FROM orders WHERE id = %s FOR UPDATE", [order_id]).fetchone()
    if row is None or row[0] != "placed":
        return False
    with conn.transaction():
        conn.execute("UPDATE orders SET status = 'cancelled' WHERE id = %s", [order_id])
        outbox.add(conn, CANCELLED, {"order_id": order_id})
    return True
