# Rule broken: returns / still-placed. REPEATABLE READ: when the kitchen commits its start while this
# waits, the UPDATE raises a serialization failure instead of returning False.
def cancel_order(conn, order_id):
    with conn.transaction():
        conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
        conn.execute("SELECT 1")  # the snapshot is taken here
        row = conn.execute("UPDATE orders SET status = 'cancelled' WHERE id = %s AND status = 'placed' "
                           "RETURNING id", [order_id]).fetchone()
        if row is not None:
            outbox.add(conn, CANCELLED, {"order_id": order_id})
    return row is not None
