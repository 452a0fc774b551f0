# expect: correct
# rule: correct (enqueue_many of one, the transaction as a variable)
def place_order_and_enqueue(conn, customer_id, items):
    """Store an order and its send_receipt job, both or neither; return the order's id."""
    tx = conn.transaction()
    with tx:
        new = tiffin.place_order(conn, customer_id, items=items)
        ids = queue.enqueue_many(conn, "send_receipt", [dict(order_id=new["id"])])
        assert len(ids) == 1
    return new["id"]
