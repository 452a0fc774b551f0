# exercise: 02.place_order
# kind: wrong
# rule: one-transaction (the job is retried once outside the transaction when it fails, "to be safe": the order stays without a job and the caller hears nothing)
def place_order_and_enqueue(conn, customer_id, items):
    order = tiffin.place_order(conn, customer_id, items=items)
    try:
        queue.enqueue(conn, "send_receipt", {"order_id": order["id"]})
    except Exception:
        try:
            queue.enqueue(conn, "send_receipt", {"order_id": order["id"]})
        except Exception:
            pass
    return order["id"]
