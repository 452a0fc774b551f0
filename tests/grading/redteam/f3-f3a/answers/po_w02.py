# exercise: 02.place_order
# kind: wrong
# rule: one-transaction (two transactions, with a compensating DELETE of the order when the job fails: the order is committed, and visible, in between)
def place_order_and_enqueue(conn, customer_id, items):
    with conn.transaction():
        order = tiffin.place_order(conn, customer_id, items=items)
    try:
        with conn.transaction():
            queue.enqueue(conn, "send_receipt", {"order_id": order["id"]})
    except Exception:
        conn.execute("DELETE FROM orders WHERE id = %s", [order["id"]])
        raise
    return order["id"]
