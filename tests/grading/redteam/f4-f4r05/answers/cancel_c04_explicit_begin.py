# exercise: 05.cancel_order
# kind: correct
# rule: correct (explicit BEGIN/COMMIT, rowcount, rollback re-raises)
def cancel_order(conn, order_id):
    cur = conn.cursor()
    cur.execute("BEGIN")
    try:
        cur.execute("UPDATE orders o SET status = 'cancelled' WHERE o.id = %s AND o.status = 'placed'", (order_id,))
        changed = cur.rowcount == 1
        if changed:
            outbox.add(conn, CANCELLED, {"order_id": order_id})
    except BaseException:
        cur.execute("ROLLBACK")
        raise
    cur.execute("COMMIT")
    return changed
