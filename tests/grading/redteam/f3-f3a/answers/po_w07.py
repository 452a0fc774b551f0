# exercise: 02.place_order
# kind: wrong
# rule: checkout-decides (an unknown customer is looked up first and answered with None, not an error)
def place_order_and_enqueue(conn, customer_id, items):
    if conn.execute("SELECT 1 FROM customers WHERE id = %s", [customer_id]).fetchone() is None:
        return None
    with conn.transaction():
        order = tiffin.place_order(conn, customer_id, items=items)
        queue.enqueue(conn, "send_receipt", {"order_id": order["id"]})
    return order["id"]
