# wrong (ids-not-data): the job carries the order's data
def place_order(conn, customer_id, total_cents):
    with conn.transaction():
        order = tiffin.place_order(conn, customer_id, total_cents=total_cents)
        queue.enqueue(conn, "send_receipt", {"order_id": order["id"], "customer_id": customer_id,
                                             "total_cents": total_cents})
    return order["id"]
