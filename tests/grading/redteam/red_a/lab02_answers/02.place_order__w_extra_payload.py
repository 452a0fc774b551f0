# expect: wrong
# rule: ids-not-data: the payload carries the customer too
def place_order_and_enqueue(conn, customer_id, items):
    with conn.transaction():
        order = tiffin.place_order(conn, customer_id, items=items)
        queue.enqueue(conn, "send_receipt", {"order_id": order["id"], "customer_id": customer_id})
    return order["id"]
