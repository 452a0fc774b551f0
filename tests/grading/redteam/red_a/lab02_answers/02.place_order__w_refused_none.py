# expect: wrong
# rule: checkout-decides: an order the checkout refuses returns None instead of raising
def place_order_and_enqueue(conn, customer_id, items):
    try:
        with conn.transaction():
            order = tiffin.place_order(conn, customer_id, items=items)
            queue.enqueue(conn, "send_receipt", {"order_id": order["id"]})
    except ValueError:
        return None
    return order["id"]
