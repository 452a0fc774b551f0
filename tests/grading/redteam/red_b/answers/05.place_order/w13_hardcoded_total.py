# kind: wrong
# rule: order-and-job (ignores the total_cents parameter: stores the demo's 2350)
def place_order(conn, customer_id, total_cents):
    with conn.transaction():
        order = tiffin.place_order(conn, customer_id, total_cents=2350)
        queue.enqueue(conn, "send_receipt", {"order_id": order["id"]})
    return order["id"]
