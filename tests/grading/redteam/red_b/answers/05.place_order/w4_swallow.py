# kind: wrong
# rule: one-transaction (a failure does not reach the caller: swallowed, returns None)
def place_order(conn, customer_id, total_cents):
    try:
        with conn.transaction():
            order = tiffin.place_order(conn, customer_id, total_cents=total_cents)
            queue.enqueue(conn, "send_receipt", {"order_id": order["id"]})
        return order["id"]
    except Exception as error:
        print("could not place the order:", error)
        return None
