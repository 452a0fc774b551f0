# Rule broken: only-if-placed. "Too late once the kitchen started it" read as status <> 'preparing':
# an order on its way or delivered is cancelled too.
def cancel_order(conn, order_id):
    with conn.transaction():
        row = conn.execute("UPDATE orders SET status = 'cancelled' WHERE id = %s "
                           "AND status NOT IN ('preparing', 'cancelled') RETURNING id", [order_id]).fetchone()
        if row is not None:
            outbox.add(conn, CANCELLED, {"order_id": order_id})
    return row is not None
