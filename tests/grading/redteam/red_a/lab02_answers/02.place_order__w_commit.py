# expect: wrong
# rule: given-connection: COMMIT ends the caller's transaction
def place_order_and_enqueue(conn, customer_id, items):
    conn.execute("BEGIN") if conn.info.transaction_status == 0 else None
    order = tiffin.place_order(conn, customer_id, items=items)
    queue.enqueue(conn, "send_receipt", {"order_id": order["id"]})
    conn.execute("COMMIT")
    return order["id"]
