# Rule broken: one-transaction ("a failure reaches the caller"): any error becomes False.
def cancel_order(conn, order_id):
    try:
        with conn.transaction():
            row = conn.execute("UPDATE orders SET status = 'cancelled' WHERE id = %s AND status = 'placed' "
                               "RETURNING id", [order_id]).fetchone()
            if row is None:
                return False
            outbox.add(conn, CANCELLED, {"order_id": order_id})
        return True
    except Exception:
        return False
