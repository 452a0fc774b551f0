# exercise: 05.cancel_order
# kind: correct
# rule: correct (row locked with SELECT ... FOR UPDATE inside the transaction, then decided)
def cancel_order(conn, order_id):
    with conn.transaction():
        row = conn.execute("SELECT status FROM orders WHERE id = %s FOR UPDATE", (order_id,)).fetchone()
        if row is None or row[0] != "placed":
            return False
        conn.execute("UPDATE orders SET status = 'cancelled' WHERE id = %s", (order_id,))
        outbox.add(conn, CANCELLED, {"order_id": order_id})
        return True
