# exercise: 02.place_order
# kind: wrong
# rule: one-transaction (the order is stored and the job then written with a separate INSERT ... SELECT that checks the order is committed: on a caller's transaction the job and order are split across two transactions when autocommit is on)
def place_order_and_enqueue(conn, customer_id, items):
    order = tiffin.place_order(conn, customer_id, items=items)
    with conn.transaction():
        if conn.execute("SELECT 1 FROM orders WHERE id = %s", [order["id"]]).fetchone():
            queue.enqueue(conn, "send_receipt", {"order_id": order["id"]})
    return order["id"]
