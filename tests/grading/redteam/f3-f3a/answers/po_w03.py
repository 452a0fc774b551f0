# exercise: 02.place_order
# kind: wrong
# rule: one-transaction ("the caller hears of it": the failure is rolled back but swallowed, and None returned)
def place_order_and_enqueue(conn, customer_id, items):
    try:
        with conn.transaction():
            order = tiffin.place_order(conn, customer_id, items=items)
            queue.enqueue(conn, "send_receipt", {"order_id": order["id"]})
    except Exception as error:
        print(f"could not place the order: {error}")
        return None
    return order["id"]
