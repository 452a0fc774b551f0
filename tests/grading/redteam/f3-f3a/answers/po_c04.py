# exercise: 02.place_order
# kind: correct
# rule: correct (conn.transaction(force_rollback=False), the payload built key by key, priority=0 given)


def place_order_and_enqueue(conn, customer_id, items):
    with conn.transaction(force_rollback=False):
        order = tiffin.place_order(conn, customer_id, items=items)
        payload = {}
        payload["order_id"] = order["id"]
        queue.enqueue(conn, "send_receipt", payload, priority=0)
    return order["id"]
