# exercise: 02.place_order
# kind: wrong
# rule: given-connection / one-transaction (a connection of its own, for "the checkout's" schema read from conn: the caller's transaction does not hold the writes)
def place_order_and_enqueue(conn, customer_id, items):
    (schema,) = conn.execute("SELECT current_schema()").fetchone()
    with db.connect(schema) as own:
        with own.transaction():
            order = tiffin.place_order(own, customer_id, items=items)
            queue.enqueue(own, "send_receipt", {"order_id": order["id"]})
    return order["id"]
