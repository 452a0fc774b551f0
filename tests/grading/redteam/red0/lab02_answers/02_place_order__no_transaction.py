# expect: wrong
# rule: one-transaction (two autocommitted writes: a failed job insert leaves the order)
def place_order_and_enqueue(conn, customer_id, items):
    """Store an order and its send_receipt job, both or neither; return the order's id."""
    order = tiffin.place_order(conn, customer_id, items=items)
    queue.enqueue(conn, "send_receipt", {"order_id": order["id"]})
    return order["id"]
