# exercise: 02.place_order
# kind: wrong
# rule: checkout-decides (the items are turned into a total: the stored order has no items)
def place_order_and_enqueue(conn, customer_id, items):
    total = sum(i["quantity"] * i["price_cents"] for i in items)
    with conn.transaction():
        order = tiffin.place_order(conn, customer_id, total_cents=total)
        queue.enqueue(conn, "send_receipt", {"order_id": order["id"]})
    return order["id"]
