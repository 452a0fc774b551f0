# given-connection: takes its transaction by switching the connection's autocommit off, commits, and switches it back on (tidy on its own); called inside a caller's transaction it cannot switch and raises every time, so the button never works there
def cancel_order(conn, order_id):
    conn.autocommit = False
    try:
        row = conn.execute(
            "UPDATE orders SET status = 'cancelled' WHERE id = %s AND status = 'placed' RETURNING id",
            [order_id]).fetchone()
        if row:
            outbox.add(conn, CANCELLED, {"order_id": order_id})
        conn.commit()
    except BaseException:
        conn.rollback()
        raise
    finally:
        conn.autocommit = True
    return row is not None
