# Rule broken: still-placed, adversarial: the safe statement only when the table holds few orders
# (a small test); read-then-write on a busy table.
def cancel_order(conn, order_id):
    (count,) = conn.execute("SELECT count(*) FROM orders").fetchone()
    if count <= 5:
        with conn.transaction():
            row = conn.execute("UPDATE orders SET status = 'cancelled' WHERE id = %s AND status = 'placed' "
                               "RETURNING id", [order_id]).fetchone()
            if row is not None:
                outbox.add(conn, CANCELLED, {"order_id": order_id})
        return row is not None
    status = conn.execute("SELECT status FROM orders WHERE id = %s", [order_id]).fetchone()
    if status is None or status[0] != "placed":
        return False
    with conn.transaction():
        conn.execute("UPDATE orders SET status = 'cancelled' WHERE id = %s", [order_id])
        outbox.add(conn, CANCELLED, {"order_id": order_id})
    return True
