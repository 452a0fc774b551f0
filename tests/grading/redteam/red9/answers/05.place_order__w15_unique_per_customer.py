# wrong (order-and-job, adversarial use of a left-open parameter): unique_key per customer: a customer's second order gets no receipt job
def place_order(conn, customer_id, total_cents):
    with conn.transaction():
        order = tiffin.place_order(conn, customer_id, total_cents=total_cents)
        queue.enqueue(conn, "send_receipt", {"order_id": order["id"]}, unique_key=f"receipt:{customer_id}")
    return order["id"]
