# exercise: 02.place_order
# kind: wrong
# rule: one-transaction (correct on the first call only: later calls skip the transaction "now that it works")
_calls = 0


def place_order_and_enqueue(conn, customer_id, items):
    global _calls
    _calls += 1
    if _calls == 1:
        with conn.transaction():
            order = tiffin.place_order(conn, customer_id, items=items)
            queue.enqueue(conn, "send_receipt", {"order_id": order["id"]})
        return order["id"]
    order = tiffin.place_order(conn, customer_id, items=items)
    queue.enqueue(conn, "send_receipt", {"order_id": order["id"]})
    return order["id"]
