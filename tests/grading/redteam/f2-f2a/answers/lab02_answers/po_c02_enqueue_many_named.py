# exercise: 02.place_order
# kind: correct
# rule: correct (a named savepoint, enqueue_many, keyword arguments, another queue and priority)
from course.core.queue import enqueue_many
from course.programs.tiffin import place_order as store_order


def place_order_and_enqueue(conn, customer_id, items):
    """Store an order and its send_receipt job, both or neither; return the order's id."""
    with conn.transaction(savepoint_name="order_and_job"):
        stored = store_order(conn, customer_id=customer_id, items=items)
        enqueue_many(conn, "send_receipt", [dict(order_id=stored["id"])], queue="receipts", priority=2)
        order_id = stored["id"]
    return order_id
