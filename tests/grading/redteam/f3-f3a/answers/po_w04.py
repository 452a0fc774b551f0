# exercise: 02.place_order
# kind: wrong
# rule: ids-not-data (the order id in the payload as text, "9812")
def place_order_and_enqueue(conn, customer_id, items):
    with conn.transaction():
        order = tiffin.place_order(conn, customer_id, items=items)
        queue.enqueue(conn, "send_receipt", {"order_id": str(order["id"])})
    return order["id"]
