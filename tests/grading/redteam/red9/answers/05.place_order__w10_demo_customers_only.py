# wrong (adversarial, one-transaction): one transaction for the five demo customers only
def place_order(conn, customer_id, total_cents):
    if customer_id in (1, 2, 3, 4, 5):
        with conn.transaction():
            order = tiffin.place_order(conn, customer_id, total_cents=total_cents)
            queue.enqueue(conn, "send_receipt", {"order_id": order["id"]})
        return order["id"]
    order = tiffin.place_order(conn, customer_id, total_cents=total_cents)
    queue.enqueue(conn, "send_receipt", {"order_id": order["id"]})
    return order["id"]
