# exercise: 02.place_order
# kind: correct
# rule: correct (aliases, enqueue_many with one payload, dict(order_id=...))
from course.core.queue import enqueue_many as put_jobs
from course.programs.tiffin import place_order as store


def place_order_and_enqueue(conn, customer_id, items):
    with conn.transaction() as tx:
        stored = store(conn, customer_id, items=items)
        order_id = int(stored["id"])
        put_jobs(tx.connection, "send_receipt", [dict(order_id=order_id)])
        return order_id
