# exercise: 02.place_order
# kind: correct
# rule: correct (hints 1-3 word for word)
def place_order_and_enqueue(conn, customer_id, items):
    """Store an order and its send_receipt job, both or neither; return the order's id."""
    with conn.transaction():
        order = tiffin.place_order(conn, customer_id, items=items)
        queue.enqueue(conn, "send_receipt", {"order_id": order["id"]})
    return order["id"]
