# exercise: 02.place_order
# kind: wrong
# rule: return-id (returns the job's id)
def place_order_and_enqueue(conn, customer_id, items):
    """Store an order and its send_receipt job, both or neither; return the order's id."""
    with conn.transaction():
        order = tiffin.place_order(conn, customer_id, items=items)
        return queue.enqueue(conn, "send_receipt", {"order_id": order["id"]})
