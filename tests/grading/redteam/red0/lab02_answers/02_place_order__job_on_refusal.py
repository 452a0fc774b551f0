# expect: wrong
# rule: checkout-decides (a refused order still leaves a job, written after the transaction, "so support hears of it")
def place_order_and_enqueue(conn, customer_id, items):
    """Store an order and its send_receipt job, both or neither; return the order's id."""
    try:
        with conn.transaction():
            order = tiffin.place_order(conn, customer_id, items=items)
            queue.enqueue(conn, "send_receipt", {"order_id": order["id"]})
    except Exception:
        queue.enqueue(conn, "send_receipt", {"order_id": 0})
        raise
    return order["id"]
