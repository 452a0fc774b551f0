# expect: wrong
# rule: given-connection (BEGIN/COMMIT by hand: inside the caller's transaction the COMMIT commits the caller's work)
def place_order_and_enqueue(conn, customer_id, items):
    """Store an order and its send_receipt job, both or neither; return the order's id."""
    conn.execute("BEGIN")
    try:
        order = tiffin.place_order(conn, customer_id, items=items)
        queue.enqueue(conn, "send_receipt", {"order_id": order["id"]})
    except Exception:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")
    return order["id"]
