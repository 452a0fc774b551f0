# Rule broken: one-transaction / given-connection: BEGIN ... COMMIT/ROLLBACK by hand, which ends the
# caller's own transaction when there is one (commits what the caller meant to roll back).
def cancel_order(conn, order_id):
    conn.execute("BEGIN")
    row = conn.execute("UPDATE orders SET status = 'cancelled' WHERE id = %s AND status = 'placed' "
                       "RETURNING id", [order_id]).fetchone()
    if row is None:
        conn.execute("ROLLBACK")
        return False
    outbox.add(conn, CANCELLED, {"order_id": order_id})
    conn.execute("COMMIT")
    return True
