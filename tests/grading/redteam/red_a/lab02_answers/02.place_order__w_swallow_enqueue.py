# expect: wrong
# rule: one-transaction: the enqueue's error is swallowed inside the transaction's savepoint, order kept
def place_order_and_enqueue(conn, customer_id, items):
    with conn.transaction():
        order = tiffin.place_order(conn, customer_id, items=items)
        try:
            with conn.transaction():
                queue.enqueue(conn, "send_receipt", {"order_id": order["id"]})
        except Exception as error:
            print("could not enqueue the receipt:", error)
    return order["id"]
