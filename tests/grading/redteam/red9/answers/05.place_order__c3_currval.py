# correct: the id read back with currval (session-local), inside the transaction
def place_order(conn, customer_id, total_cents):
    with conn.transaction():
        tiffin.place_order(conn, customer_id, total_cents=total_cents)
        (order_id,) = conn.execute("SELECT currval(pg_get_serial_sequence('orders', 'id'))").fetchone()
        queue.enqueue(conn, "send_receipt", {"order_id": order_id})
        return order_id
