# wrong (order-and-job: change nothing else): also stamps the customer's updated_at "as last seen"
def place_order(conn, customer_id, total_cents):
    with conn.transaction():
        order = tiffin.place_order(conn, customer_id, total_cents=total_cents)
        conn.execute("UPDATE customers SET updated_at = now() WHERE id = %s", [customer_id])
        queue.enqueue(conn, "send_receipt", {"order_id": order["id"]})
    return order["id"]
