# kind: wrong
# rule: order-and-job (job type 'send_receipts', not 'send_receipt')
def place_order(conn, customer_id, total_cents):
    with conn.transaction():
        order = tiffin.place_order(conn, customer_id, total_cents=total_cents)
        queue.enqueue(conn, "send_receipts", {"order_id": order["id"]})
    return order["id"]
