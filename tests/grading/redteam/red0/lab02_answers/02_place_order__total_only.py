# expect: wrong
# rule: checkout-decides (stores a total instead of the items: the order has no lines, and a bad item is not refused)
def place_order_and_enqueue(conn, customer_id, items):
    """Store an order and its send_receipt job, both or neither; return the order's id."""
    total = sum(item.get("quantity", 1) * item.get("price_cents", 0) for item in items)
    with conn.transaction():
        order = tiffin.place_order(conn, customer_id, total_cents=max(total, 1))
        queue.enqueue(conn, "send_receipt", {"order_id": order["id"]})
    return order["id"]
