# WRONG (one-transaction: a failure reaches the caller): any error is swallowed and reported as False
def cancel_order(conn, order_id):
    try:
        with conn.transaction():
            row = conn.execute("UPDATE orders SET status = 'cancelled' WHERE id = %s AND status = 'placed' "
                               "RETURNING id", [order_id]).fetchone()
            if row:
                outbox.add(conn, CANCELLED, {"order_id": order_id})
        return row is not None
    except Exception:
        return False
