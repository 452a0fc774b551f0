# given-connection: hint 3's answer plus a conn.commit() "by habit" at the end: a no-op on an idle autocommit connection, but inside a caller's transaction it either commits the caller's work (a BEGIN of the caller's) or raises (psycopg's transaction block): never the cancel the caller asked for
def cancel_order(conn, order_id):
    with conn.transaction():
        cancelled = conn.execute(
            "UPDATE orders SET status = 'cancelled' WHERE id = %s AND status = 'placed' RETURNING id",
            [order_id]).fetchone()
        if cancelled:
            outbox.add(conn, CANCELLED, {"order_id": order_id})
    conn.commit()
    return cancelled is not None
