# exercise: 02.place_order
# kind: wrong
# rule: one-transaction (the job is stored from a thread, "so the customer is answered sooner": the function returns before the job exists, and a failure never reaches the caller)
import threading


def place_order_and_enqueue(conn, customer_id, items):
    with conn.transaction():
        order = tiffin.place_order(conn, customer_id, items=items)
    enqueuer = threading.Thread(target=queue.enqueue, args=(conn, "send_receipt", {"order_id": order["id"]}))
    enqueuer.start()
    enqueuer.join(timeout=5)
    return order["id"]
