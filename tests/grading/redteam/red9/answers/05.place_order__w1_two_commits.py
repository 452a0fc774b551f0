# wrong (one-transaction): two writes, two commits (autocommit)
def place_order(conn, customer_id, total_cents):
    order = tiffin.place_order(conn, customer_id, total_cents=total_cents)
    queue.enqueue(conn, "send_receipt", {"order_id": order["id"]})
    return order["id"]
