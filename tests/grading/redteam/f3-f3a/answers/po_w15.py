# exercise: 02.place_order
# kind: wrong
# rule: one-transaction (the job goes in a savepoint of its own whose failure is logged and swallowed: the order commits without its job, and the caller hears nothing)
def place_order_and_enqueue(conn, customer_id, items):
    with conn.transaction():
        order = tiffin.place_order(conn, customer_id, items=items)
        try:
            with conn.transaction():
                queue.enqueue(conn, "send_receipt", {"order_id": order["id"]})
        except Exception as error:
            print(f"receipt job not stored for order {order['id']}: {error}")
    return order["id"]
