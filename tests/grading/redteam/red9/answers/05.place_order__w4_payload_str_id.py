# wrong (ids-not-data: the id's type): the order id as text
def place_order(conn, customer_id, total_cents):
    with conn.transaction():
        order = tiffin.place_order(conn, customer_id, total_cents=total_cents)
        queue.enqueue(conn, "send_receipt", {"order_id": str(order["id"])})
    return order["id"]
