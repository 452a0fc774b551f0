# given-connection: switches the given connection's autocommit off to get a transaction, commits, and leaves it off (the caller's next statements sit in a transaction nobody commits); inside a caller's transaction it cannot switch at all
def cancel_order(conn, order_id):
    conn.autocommit = False
    try:
        row = conn.execute(
            "UPDATE orders SET status = 'cancelled' WHERE id = %s AND status = 'placed' RETURNING id",
            [order_id]).fetchone()
        if row:
            outbox.add(conn, CANCELLED, {"order_id": order_id})
        conn.commit()
    except Exception:
        conn.rollback()
        raise
    return row is not None
