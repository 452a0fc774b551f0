# exercise: 02.place_order
# kind: wrong
# rule: ids-not-data (the payload carries the customer id too)
def place_order_and_enqueue(conn, customer_id, items):
    """Store an order and its send_receipt job, both or neither; return the order's id."""
    with conn.transaction():
        order = tiffin.place_order(conn, customer_id, items=items)
        queue.enqueue(conn, "send_receipt", {"order_id": order["id"], "customer_id": customer_id})
    return order["id"]
