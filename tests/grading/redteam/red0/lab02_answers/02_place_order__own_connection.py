# expect: wrong
# rule: given-connection (its own connection, its own commit: the caller's rollback leaves both)
def place_order_and_enqueue(conn, customer_id, items):
    """Store an order and its send_receipt job, both or neither; return the order's id."""
    schema = conn.execute("SELECT current_schema()").fetchone()[0]
    with db.connect(schema) as mine, mine.transaction():
        order = tiffin.place_order(mine, customer_id, items=items)
        queue.enqueue(mine, "send_receipt", {"order_id": order["id"]})
    return order["id"]
