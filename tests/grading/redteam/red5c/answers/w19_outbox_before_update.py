# Rule broken: announce: the outbox row is added first, then the UPDATE; when it changes nothing, the
# row stays (the transaction commits).
def cancel_order(conn, order_id):
    with conn.transaction():
        outbox.add(conn, CANCELLED, {"order_id": order_id})
        cur = conn.execute("UPDATE orders SET status = 'cancelled' WHERE id = %s AND status = 'placed'", [order_id])
    return cur.rowcount == 1
