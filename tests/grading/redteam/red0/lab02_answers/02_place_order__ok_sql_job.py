# expect: correct
# rule: correct (the job stored with an INSERT of its own, json.dumps)
def place_order_and_enqueue(conn, customer_id, items):
    """Store an order and its send_receipt job, both or neither; return the order's id."""
    with conn.transaction():
        order_id = tiffin.place_order(conn, customer_id, items=items)["id"]
        conn.execute("INSERT INTO jobs (type, payload) VALUES ('send_receipt', %s::jsonb)",
                     [json.dumps({"order_id": order_id})])
    return order_id
