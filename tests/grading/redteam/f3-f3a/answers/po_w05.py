# exercise: 02.place_order
# kind: wrong
# rule: given-connection (commits the caller's transaction: the caller's rollback no longer takes the order away)
def place_order_and_enqueue(conn, customer_id, items):
    with conn.transaction():
        order = tiffin.place_order(conn, customer_id, items=items)
        queue.enqueue(conn, "send_receipt", {"order_id": order["id"]})
    if not conn.autocommit:
        conn.commit()
    return order["id"]
