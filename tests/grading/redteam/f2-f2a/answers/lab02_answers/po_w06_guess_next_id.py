# exercise: 02.place_order
# kind: wrong
# rule: receipt-job / ids-not-data (guesses the order's id as max(id)+1 before storing it: wrong when another session orders meanwhile or ids skip)
def place_order_and_enqueue(conn, customer_id, items):
    """Store an order and its send_receipt job, both or neither; return the order's id."""
    with conn.transaction():
        next_id = conn.execute("SELECT coalesce(max(id), 9811) + 1 FROM orders").fetchone()[0]
        queue.enqueue(conn, "send_receipt", {"order_id": next_id})
        tiffin.place_order(conn, customer_id, items=items)
    return next_id
