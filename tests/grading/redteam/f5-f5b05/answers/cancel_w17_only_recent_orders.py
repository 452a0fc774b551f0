# only-if-placed: adds a rule of its own: only orders placed in the last 30 minutes can be cancelled; an older order still placed is left as it is
def cancel_order(conn, order_id):
    with conn.transaction():
        row = conn.execute(
            "UPDATE orders SET status = 'cancelled' WHERE id = %s AND status = 'placed' "
            "AND created_at > now() - interval '30 minutes' RETURNING id", [order_id]).fetchone()
        if row:
            outbox.add(conn, CANCELLED, {"order_id": order_id})
    return row is not None
