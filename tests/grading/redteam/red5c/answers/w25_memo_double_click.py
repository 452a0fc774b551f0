# Rule broken: only-if-placed / returns; adversarial "correct only on the first call": remembers the ids
# it cancelled, in the process, to stop a double click; a later order with the same id (another schema,
# the table made again) is refused.
_cancelled_ids = set()


def cancel_order(conn, order_id):
    if order_id in _cancelled_ids:
        return False
    with conn.transaction():
        row = conn.execute("UPDATE orders SET status = 'cancelled' WHERE id = %s AND status = 'placed' "
                           "RETURNING id", [order_id]).fetchone()
        if row is not None:
            outbox.add(conn, CANCELLED, {"order_id": order_id})
    if row is not None:
        _cancelled_ids.add(order_id)
    return row is not None
