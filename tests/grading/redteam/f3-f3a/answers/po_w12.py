# exercise: 02.place_order
# kind: wrong
# rule: one-transaction (no transaction of its own, "the caller's transaction covers it": on an autocommit connection the order commits alone)
def place_order_and_enqueue(conn, customer_id, items):
    order_id = tiffin.place_order(conn, customer_id, items=items)["id"]
    queue.enqueue(conn, "send_receipt", {"order_id": order_id})
    return order_id
