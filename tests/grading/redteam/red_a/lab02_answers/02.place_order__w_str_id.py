# expect: wrong
# rule: ids-not-data: the id as a string
def place_order_and_enqueue(conn, customer_id, items):
    with conn.transaction():
        order = tiffin.place_order(conn, customer_id, items=items)
        queue.enqueue(conn, "send_receipt", {"order_id": str(order["id"])})
    return order["id"]
