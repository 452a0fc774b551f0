# correct: the row locked first with SELECT ... FOR UPDATE inside the transaction (the statement allows it), then the UPDATE by id
def cancel_order(conn, order_id):
    with conn.transaction():
        found = conn.execute("SELECT status FROM orders WHERE id = %s FOR UPDATE", [order_id]).fetchone()
        if found is None or found[0] != "placed":
            return False
        conn.execute("UPDATE orders SET status = 'cancelled' WHERE id = %s", [order_id])
        outbox.add(conn, CANCELLED, {"order_id": order_id})
        return True
