# wrong (order-and-job: change nothing else): also enqueues a kitchen job
def place_order(conn, customer_id, total_cents):
    with conn.transaction():
        order = tiffin.place_order(conn, customer_id, total_cents=total_cents)
        queue.enqueue(conn, "send_receipt", {"order_id": order["id"]})
        queue.enqueue(conn, "notify_kitchen", {"order_id": order["id"]})
    return order["id"]
