# exercise: 02.place_order
# kind: wrong
# rule: receipt-job / return-id (reads the new order's id back as max(id): another session's order committed meanwhile is taken instead)
def place_order_and_enqueue(conn, customer_id, items):
    """Store an order and its send_receipt job, both or neither; return the order's id."""
    with conn.transaction():
        tiffin.place_order(conn, customer_id, items=items)
        order_id = conn.execute("SELECT max(id) FROM orders").fetchone()[0]
        queue.enqueue(conn, "send_receipt", {"order_id": order_id})
    return order_id
