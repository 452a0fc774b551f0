# expect: wrong
# rule: ids-not-data / return-id: the job is stored first with a guessed id (max + 1), wrong beside another checkout
def place_order_and_enqueue(conn, customer_id, items):
    with conn.transaction():
        next_id = conn.execute("SELECT coalesce(max(id), 0) + 1 FROM orders").fetchone()[0]
        queue.enqueue(conn, "send_receipt", {"order_id": next_id})
        tiffin.place_order(conn, customer_id, items=items)
    return next_id
