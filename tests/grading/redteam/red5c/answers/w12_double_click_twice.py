# Rule broken: announce / still-placed. An order cancelled already is "cancelled" again: a double click
# adds a second outbox row and returns True twice.
def cancel_order(conn, order_id):
    with conn.transaction():
        row = conn.execute("UPDATE orders SET status = 'cancelled' WHERE id = %s "
                           "AND status IN ('placed', 'cancelled') RETURNING id", [order_id]).fetchone()
        if row is not None:
            outbox.add(conn, CANCELLED, {"order_id": order_id})
    return row is not None
