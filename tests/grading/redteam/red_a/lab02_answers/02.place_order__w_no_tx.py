# expect: wrong
# rule: one-transaction: two autocommit statements, an order without its job when the enqueue fails
def place_order_and_enqueue(conn, customer_id, items):
    order = tiffin.place_order(conn, customer_id, items=items)
    queue.enqueue(conn, "send_receipt", {"order_id": order["id"]})
    return order["id"]
