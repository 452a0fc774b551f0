# exercise: 05.cancel_order
# kind: correct
# rule: correct (outbox row first, then the UPDATE; nothing changed: roll back both)
class _NotPlaced(Exception):
    pass

def cancel_order(conn, order_id):
    try:
        with conn.transaction():
            outbox.add(conn, CANCELLED, {"order_id": order_id})
            hit = conn.execute("UPDATE orders SET status = 'cancelled' WHERE status = 'placed' AND id = %s",
                               [order_id])
            if hit.rowcount != 1:
                raise _NotPlaced()
    except _NotPlaced:
        return False
    return True
