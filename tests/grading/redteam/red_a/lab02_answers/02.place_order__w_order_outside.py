# expect: wrong
# rule: one-transaction: the order commits before the job's transaction
def place_order_and_enqueue(conn, customer_id, items):
    order = tiffin.place_order(conn, customer_id, items=items)
    with conn.transaction():
        queue.enqueue(conn, "send_receipt", {"order_id": order["id"]})
    return order["id"]
