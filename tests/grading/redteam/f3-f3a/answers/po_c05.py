# exercise: 02.place_order
# kind: correct
# rule: correct (the hints' steps word for word, the payload built before the transaction ends, the id returned from inside it)
def place_order_and_enqueue(conn, customer_id, items):
    with conn.transaction():
        order = tiffin.place_order(conn, customer_id, items=items)
        payload = {"order_id": order["id"]}
        queue.enqueue(conn, "send_receipt", payload)
        return order["id"]
