# exercise: 05.cancel_order
# kind: wrong
# rule: still-placed (conditional UPDATE, but announces and returns on an earlier read)
def cancel_order(conn, order_id):
    current = tiffin.order(conn, order_id)
    if current is None or current["status"] != "placed":
        return False
    with conn.transaction():
        conn.execute("UPDATE orders SET status = 'cancelled' WHERE id = %s AND status = 'placed'", [order_id])
        outbox.add(conn, CANCELLED, {"order_id": order_id})
    return True
