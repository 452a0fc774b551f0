# kind: wrong
# rule: one-transaction (a failing enqueue is swallowed inside a savepoint: order stored, no job)
def place_order(conn, customer_id, total_cents):
    with conn.transaction():
        order = tiffin.place_order(conn, customer_id, total_cents=total_cents)
        try:
            with conn.transaction():
                queue.enqueue(conn, "send_receipt", {"order_id": order["id"]})
        except Exception as error:
            print("receipt job not stored:", error)
    return order["id"]
