# exercise: 02.place_order
# kind: wrong
# rule: return-id (returns the job's id, what enqueue returned)
def place_order_and_enqueue(conn, customer_id, items):
    with conn.transaction():
        order = tiffin.place_order(conn, customer_id, items=items)
        return queue.enqueue(conn, "send_receipt", {"order_id": order["id"]})
