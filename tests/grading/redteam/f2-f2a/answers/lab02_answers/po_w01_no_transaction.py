# exercise: 02.place_order
# kind: wrong
# rule: one-transaction (two writes with no transaction around them: in autocommit, a refused job leaves the order)
def place_order_and_enqueue(conn, customer_id, items):
    """Store an order and its send_receipt job, both or neither; return the order's id."""
    order = tiffin.place_order(conn, customer_id, items=items)
    queue.enqueue(conn, "send_receipt", {"order_id": order["id"]})
    return order["id"]
