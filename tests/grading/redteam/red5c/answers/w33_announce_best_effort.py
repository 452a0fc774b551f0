# Rule broken: one-transaction / announce: the announcement in a savepoint whose failure is ignored
# ("the cancel must not fail because of the kitchen's screens"): cancelled, and nobody told.
def cancel_order(conn, order_id):
    with conn.transaction():
        row = conn.execute("UPDATE orders SET status = 'cancelled' WHERE id = %s AND status = 'placed' "
                           "RETURNING id", [order_id]).fetchone()
        if row is not None:
            try:
                with conn.transaction():
                    outbox.add(conn, CANCELLED, {"order_id": order_id})
            except Exception:
                pass
    return row is not None
