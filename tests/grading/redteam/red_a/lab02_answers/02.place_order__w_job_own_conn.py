# expect: wrong
# rule: given-connection/one-transaction: the job goes through a connection of its own
def place_order_and_enqueue(conn, customer_id, items):
    schema = conn.execute("SELECT current_schema()").fetchone()[0]
    with conn.transaction():
        order = tiffin.place_order(conn, customer_id, items=items)
    with db.connect(schema) as jobs_conn:
        queue.enqueue(jobs_conn, "send_receipt", {"order_id": order["id"]})
    return order["id"]
