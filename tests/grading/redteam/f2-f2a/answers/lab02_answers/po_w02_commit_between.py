# exercise: 02.place_order
# kind: wrong
# rule: one-transaction / given-connection (commits the order before storing the job)
def place_order_and_enqueue(conn, customer_id, items):
    """Store an order and its send_receipt job, both or neither; return the order's id."""
    order = tiffin.place_order(conn, customer_id, items=items)
    conn.commit()  # the order is safe now
    queue.enqueue(conn, "send_receipt", {"order_id": order["id"]})
    conn.commit()
    return order["id"]
