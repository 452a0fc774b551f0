# expect: wrong
# rule: one-transaction (the caller never hears the job failed: the order goes on without a receipt)
def place_order_and_enqueue(conn, customer_id, items):
    """Store an order and its send_receipt job, both or neither; return the order's id."""
    with conn.transaction():
        order = tiffin.place_order(conn, customer_id, items=items)
        try:
            with conn.transaction():
                queue.enqueue(conn, "send_receipt", {"order_id": order["id"]})
        except Exception as error:
            print("could not enqueue the receipt:", error)
    return order["id"]
