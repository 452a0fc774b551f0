# Rule broken: only-if-placed ("change nothing else"): stamps created_at as the time of the change.
def cancel_order(conn, order_id):
    with conn.transaction():
        row = conn.execute("UPDATE orders SET status = 'cancelled', created_at = now() "
                           "WHERE id = %s AND status = 'placed' RETURNING id", [order_id]).fetchone()
        if row is not None:
            outbox.add(conn, CANCELLED, {"order_id": order_id})
    return row is not None
