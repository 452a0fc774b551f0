# expect: wrong
# rule: receipt-job/ids-not-data (enqueues first with a guessed id max(id)+1: another checkout takes that id)
def place_order_and_enqueue(conn, customer_id, items):
    """Store an order and its send_receipt job, both or neither; return the order's id."""
    with conn.transaction():
        next_id = conn.execute("SELECT coalesce(max(id), 0) + 1 FROM orders").fetchone()[0]
        queue.enqueue(conn, "send_receipt", {"order_id": next_id})
        order = tiffin.place_order(conn, customer_id, items=items)
    return order["id"]
