# correct: the row locked with SELECT ... FOR NO KEY UPDATE (conflicts with the kitchen's UPDATE and a second click's lock), statuses passed as parameters, the outbox payload built with dict()
def cancel_order(conn, order_id):
    with conn.transaction():
        status = conn.execute("SELECT status FROM orders WHERE id = %(id)s FOR NO KEY UPDATE",
                              {"id": order_id}).fetchone()
        if not status or status[0] != "placed":
            return False
        conn.execute("UPDATE orders SET status = %(new)s WHERE id = %(id)s",
                     {"new": "cancelled", "id": order_id})
        outbox.add(conn, CANCELLED, dict(order_id=order_id))
    return True
