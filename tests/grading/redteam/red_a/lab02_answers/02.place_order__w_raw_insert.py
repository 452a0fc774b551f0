# expect: wrong
# rule: checkout-decides: the order written with an INSERT of its own, the checkout's checks skipped
def place_order_and_enqueue(conn, customer_id, items):
    total = sum(i["quantity"] * i["price_cents"] for i in items)
    with conn.transaction():
        order_id = conn.execute("INSERT INTO orders (customer_id, items, total_cents) VALUES (%s, %s, %s) RETURNING id",
                                [customer_id, json.dumps(items), total]).fetchone()[0]
        queue.enqueue(conn, "send_receipt", {"order_id": order_id})
    return order_id
