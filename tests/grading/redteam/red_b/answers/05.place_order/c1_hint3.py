# kind: correct
# rule: correct (hint 3's final answer, word for word)
def place_order(conn, customer_id, total_cents):
    """Store the order and its send_receipt job in one transaction; return the order's id."""
    with conn.transaction():
        order = tiffin.place_order(conn, customer_id, total_cents=total_cents)
        queue.enqueue(conn, "send_receipt", {"order_id": order["id"]})
    return order["id"]
