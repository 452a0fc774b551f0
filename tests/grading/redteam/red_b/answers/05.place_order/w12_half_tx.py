# kind: wrong
# rule: one-transaction (the order is saved before the transaction opens)
def place_order(conn, customer_id, total_cents):
    order = tiffin.place_order(conn, customer_id, total_cents=total_cents)
    with conn.transaction():
        queue.enqueue(conn, "send_receipt", {"order_id": order["id"]})
    return order["id"]
