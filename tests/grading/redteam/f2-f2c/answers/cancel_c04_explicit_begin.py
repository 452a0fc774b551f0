# CORRECT: explicit BEGIN / COMMIT, ROLLBACK on any error, rowcount instead of RETURNING
def cancel_order(conn, order_id):
    conn.execute("BEGIN")
    try:
        changed = conn.execute("UPDATE orders SET status = 'cancelled' WHERE status = 'placed' AND id = %s",
                               (order_id,)).rowcount
        if changed == 1:
            outbox.add(conn, CANCELLED, {"order_id": order_id})
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    return changed == 1
