# exercise: 05.cancel_order
# kind: wrong
# rule: only-if-placed (an order that does not exist raises instead of False)
def cancel_order(conn, order_id):
    with conn.transaction():
        status = conn.execute("SELECT status FROM orders WHERE id = %s FOR UPDATE", [order_id]).fetchone()[0]
        if status != "placed":
            return False
        conn.execute("UPDATE orders SET status = 'cancelled' WHERE id = %s", [order_id])
        outbox.add(conn, CANCELLED, {"order_id": order_id})
    return True
