# kind: wrong
# rule: given-connection (opens its own connection)
def place_order(conn, customer_id, total_cents):
    with db.connect(SCHEMA) as own:
        with own.transaction():
            order = tiffin.place_order(own, customer_id, total_cents=total_cents)
            queue.enqueue(own, "send_receipt", {"order_id": order["id"]})
    return order["id"]
