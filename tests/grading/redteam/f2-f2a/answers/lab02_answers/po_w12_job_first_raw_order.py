# exercise: 02.place_order
# kind: wrong
# rule: one-transaction / checkout-decides (the job is stored first and the order by a raw INSERT, with no transaction: a refused order or a missing customer leaves a job behind)
import json


def place_order_and_enqueue(conn, customer_id, items):
    """Store an order and its send_receipt job, both or neither; return the order's id."""
    order_id = conn.execute("SELECT nextval(pg_get_serial_sequence('orders', 'id'))").fetchone()[0]
    queue.enqueue(conn, "send_receipt", {"order_id": order_id})
    checked = tiffin.checked_items(items)
    order = conn.execute("INSERT INTO orders (id, customer_id, items, total_cents) VALUES (%s, %s, %s::jsonb, %s) RETURNING id",
                         [order_id, customer_id, json.dumps(checked), tiffin.order_total(checked, None)]).fetchone()
    return order[0]
