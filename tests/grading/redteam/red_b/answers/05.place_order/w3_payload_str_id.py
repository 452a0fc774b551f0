# kind: wrong
# rule: ids-not-data (the id as a string, not the id)
def place_order(conn, customer_id, total_cents):
    with conn.transaction():
        order = tiffin.place_order(conn, customer_id, total_cents=total_cents)
        queue.enqueue(conn, "send_receipt", {"order_id": str(order["id"])})
    return order["id"]
