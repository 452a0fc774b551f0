# expect: correct
# rule: correct (aliases, a named savepoint, the id read from the dict afterwards)
from course.programs.tiffin import place_order as store_order
from course.core.queue import enqueue as add_job


def place_order_and_enqueue(conn, customer_id, items):
    """Store an order and its send_receipt job, both or neither; return the order's id."""
    with conn.transaction(savepoint_name="checkout"):
        stored = store_order(conn, customer_id, items=items)
        add_job(conn, "send_receipt", payload={"order_id": stored["id"]})
    return stored["id"]
