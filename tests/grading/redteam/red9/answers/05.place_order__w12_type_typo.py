# wrong (order-and-job: the type): "receipt" instead of "send_receipt"
def place_order(conn, customer_id, total_cents):
    with conn.transaction():
        order = tiffin.place_order(conn, customer_id, total_cents=total_cents)
        queue.enqueue(conn, "receipt", {"order_id": order["id"]})
    return order["id"]
