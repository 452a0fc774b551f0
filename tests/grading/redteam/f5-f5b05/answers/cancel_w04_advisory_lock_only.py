# still-placed: an advisory lock per order serialises two clicks of the button, but the kitchen does not take it: read-then-write race with the kitchen
def cancel_order(conn, order_id):
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", [order_id])
        row = conn.execute("SELECT status FROM orders WHERE id = %s", [order_id]).fetchone()
        if row is None or row[0] != "placed":
            return False
        conn.execute("UPDATE orders SET status = 'cancelled' WHERE id = %s", [order_id])
        outbox.add(conn, CANCELLED, {"order_id": order_id})
    return True
