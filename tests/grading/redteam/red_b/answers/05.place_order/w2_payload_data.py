# kind: wrong
# rule: ids-not-data (payload carries the total and customer)
def place_order(conn, customer_id, total_cents):
    with conn.transaction():
        order = tiffin.place_order(conn, customer_id, total_cents=total_cents)
        queue.enqueue(conn, "send_receipt", {"order_id": order["id"], "customer_id": customer_id,
                                             "total_cents": total_cents})
    return order["id"]
