# exercise: 02.place_order
# kind: wrong
# rule: receipt-job (one job per item line instead of one per order)
def place_order_and_enqueue(conn, customer_id, items):
    """Store an order and its send_receipt job, both or neither; return the order's id."""
    with conn.transaction():
        order = tiffin.place_order(conn, customer_id, items=items)
        for _ in order["items"]:
            queue.enqueue(conn, "send_receipt", {"order_id": order["id"]})
    return order["id"]
