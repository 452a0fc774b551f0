# CORRECT: the row locked first with SELECT ... FOR UPDATE inside the transaction, then updated by id
def cancel_order(conn, order_id):
    with conn.transaction():
        current = conn.execute("SELECT o.status FROM orders AS o WHERE o.id = %(id)s FOR UPDATE",
                               {"id": order_id}).fetchone()
        if not current or current[0] != "placed":
            return False
        conn.execute("UPDATE orders SET status = %(s)s WHERE id = %(id)s", {"s": "cancelled", "id": order_id})
        outbox.add(conn, CANCELLED, {"order_id": order_id})
        return True
