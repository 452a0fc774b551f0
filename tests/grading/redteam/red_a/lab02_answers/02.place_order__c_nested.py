# expect: correct
# rule: correct: two nested transactions (savepoints), enqueue_many
def place_order_and_enqueue(conn, customer_id, items):
    with conn.transaction():
        order = tiffin.place_order(conn, customer_id, items=items)
        with conn.transaction():
            [job_id] = queue.enqueue_many(conn, "send_receipt", [{"order_id": order["id"]}])
    return order["id"]
