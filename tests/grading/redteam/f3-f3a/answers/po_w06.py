# exercise: 02.place_order
# kind: wrong
# rule: receipt-job (unique_key per customer "against duplicates": a customer's second order gets no job while the first one waits)
def place_order_and_enqueue(conn, customer_id, items):
    with conn.transaction():
        order = tiffin.place_order(conn, customer_id, items=items)
        queue.enqueue(conn, "send_receipt", {"order_id": order["id"]}, unique_key=f"receipt-for-customer-{customer_id}")
    return order["id"]
