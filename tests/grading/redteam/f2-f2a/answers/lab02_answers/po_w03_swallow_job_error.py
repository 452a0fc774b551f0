# exercise: 02.place_order
# kind: wrong
# rule: one-transaction (a failed job insert is swallowed: the caller never hears of it)
def place_order_and_enqueue(conn, customer_id, items):
    """Store an order and its send_receipt job, both or neither; return the order's id."""
    with conn.transaction():
        order = tiffin.place_order(conn, customer_id, items=items)
        try:
            with conn.transaction():
                queue.enqueue(conn, "send_receipt", {"order_id": order["id"]})
        except Exception as error:
            print(f"could not queue the receipt for {order['id']}: {error}")
    return order["id"]
