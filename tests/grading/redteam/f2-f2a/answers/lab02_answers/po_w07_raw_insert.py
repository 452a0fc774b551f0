# exercise: 02.place_order
# kind: wrong
# rule: checkout-decides (stores the order with its own INSERT: an order the checkout refuses is stored, with a job)
import json


def place_order_and_enqueue(conn, customer_id, items):
    """Store an order and its send_receipt job, both or neither; return the order's id."""
    total = sum(item.get("quantity", 1) * item.get("price_cents", 0) for item in items) or 1
    with conn.transaction():
        order_id = conn.execute("INSERT INTO orders (customer_id, items, total_cents) VALUES (%s, %s::jsonb, %s) RETURNING id",
                                [customer_id, json.dumps(items), total]).fetchone()[0]
        queue.enqueue(conn, "send_receipt", {"order_id": order_id})
    return order_id
