# exercise: 02.place_order
# kind: wrong
# rule: one-transaction (two transactions, one after the other: the order is committed when the job fails, and the caller hears of it)
def place_order_and_enqueue(conn, customer_id, items):
    with conn.transaction():
        order = tiffin.place_order(conn, customer_id, items=items)
    with conn.transaction():
        queue.enqueue(conn, "send_receipt", {"order_id": order["id"]})
    return order["id"]
