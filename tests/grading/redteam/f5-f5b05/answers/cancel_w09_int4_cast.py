# only-if-placed/returns (wrong type): casts the id to int4 (%s::int): an id beyond 2^31-1 raises instead of returning False
def cancel_order(conn, order_id):
    with conn.transaction():
        row = conn.execute(
            "UPDATE orders SET status = 'cancelled' WHERE id = %s::int AND status = 'placed' RETURNING id",
            [order_id]).fetchone()
        if row:
            outbox.add(conn, CANCELLED, {"order_id": order_id})
    return row is not None
