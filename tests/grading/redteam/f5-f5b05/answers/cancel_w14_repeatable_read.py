# given-connection/returns: read-then-write made "safe" with SET TRANSACTION ISOLATION LEVEL REPEATABLE READ: fails inside a caller's transaction, and raises instead of returning False when the kitchen wins the race
def cancel_order(conn, order_id):
    with conn.transaction():
        conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
        row = conn.execute("SELECT status FROM orders WHERE id = %s", [order_id]).fetchone()
        if row is None or row[0] != "placed":
            return False
        conn.execute("UPDATE orders SET status = 'cancelled' WHERE id = %s", [order_id])
        outbox.add(conn, CANCELLED, {"order_id": order_id})
    return True
