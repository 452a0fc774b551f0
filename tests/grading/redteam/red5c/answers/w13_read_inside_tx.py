# Rule broken: still-placed. "The transaction makes it safe": a plain SELECT inside it, then an UPDATE by
# id on what it read (READ COMMITTED does not hold the row).
def cancel_order(conn, order_id):
    with conn.transaction():
        row = conn.execute("SELECT status FROM orders WHERE id = %s", [order_id]).fetchone()
        if row is None or row[0] != "placed":
            return False
        conn.execute("UPDATE orders SET status = 'cancelled' WHERE id = %s", [order_id])
        outbox.add(conn, CANCELLED, {"order_id": order_id})
    return True
