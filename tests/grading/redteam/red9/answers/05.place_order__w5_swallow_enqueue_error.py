# wrong (one-transaction: a failure reaches the caller): the enqueue's failure swallowed in a savepoint
def place_order(conn, customer_id, total_cents):
    with conn.transaction():
        order = tiffin.place_order(conn, customer_id, total_cents=total_cents)
        try:
            with conn.transaction():
                queue.enqueue(conn, "send_receipt", {"order_id": order["id"]})
        except Exception as error:
            print("could not enqueue the receipt:", error)
    return order["id"]
