# expect: correct
# rule: correct in effect (meant as wrong: the job for a refused order is written inside the transaction the raise rolls back, so nothing is left; my labelling error, not a false pass)
def place_order_and_enqueue(conn, customer_id, items):
    """Store an order and its send_receipt job, both or neither; return the order's id."""
    with conn.transaction():
        try:
            order = tiffin.place_order(conn, customer_id, items=items)
        except Exception:
            queue.enqueue(conn, "send_receipt", {"order_id": None})
            raise
        queue.enqueue(conn, "send_receipt", {"order_id": order["id"]})
    return order["id"]
