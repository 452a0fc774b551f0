# expect: correct
# rule: correct: the job with an INSERT of its own, jsonb_build_object
def place_order_and_enqueue(conn, customer_id, items):
    with conn.transaction():
        order_id = tiffin.place_order(conn, customer_id, items=items)["id"]
        conn.execute("INSERT INTO jobs (type, payload) VALUES ('send_receipt', jsonb_build_object('order_id', %s::bigint))",
                     [order_id])
        return order_id
