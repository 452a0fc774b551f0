# exercise: 02.place_order
# kind: correct
# rule: correct (the statement's steps in one conn.transaction())
def place_order_and_enqueue(conn, customer_id, items):
    with conn.transaction():
        order = tiffin.place_order(conn, customer_id, items=items)
        queue.enqueue(conn, "send_receipt", {"order_id": order["id"]})
    return order["id"]
