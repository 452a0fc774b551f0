# exercise: 02.place_order
# kind: wrong
# rule: one-transaction / return-id (the job is stored first, for the id the order "will" get: max(id) + 1; wrong after a gap in the sequence or when another session orders at the same time)
def place_order_and_enqueue(conn, customer_id, items):
    with conn.transaction():
        (next_id,) = conn.execute("SELECT coalesce(max(id), 9811) + 1 FROM orders").fetchone()
        queue.enqueue(conn, "send_receipt", {"order_id": next_id})
        order = tiffin.place_order(conn, customer_id, items=items)
    return order["id"]
