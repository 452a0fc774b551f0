# exercise: 02.place_order
# kind: wrong
# rule: checkout-decides (an order the checkout refuses returns None instead of raising)
from course.errors import InvalidArgument


def place_order_and_enqueue(conn, customer_id, items):
    """Store an order and its send_receipt job, both or neither; return the order's id."""
    try:
        with conn.transaction():
            order = tiffin.place_order(conn, customer_id, items=items)
            queue.enqueue(conn, "send_receipt", {"order_id": order["id"]})
    except InvalidArgument as error:
        print(f"order refused: {error}")
        return None
    return order["id"]
