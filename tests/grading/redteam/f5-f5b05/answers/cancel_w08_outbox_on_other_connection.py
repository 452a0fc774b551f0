# one-transaction/given-connection: the outbox row is written on a connection of its own (committed on its own), so the caller's rollback or a failed order update leaves it behind
def cancel_order(conn, order_id):
    with conn.transaction():
        row = conn.execute(
            "UPDATE orders SET status = 'cancelled' WHERE id = %s AND status = 'placed' RETURNING id",
            [order_id]).fetchone()
        if row:
            with db.connect(SCHEMA) as announcer, announcer.transaction():
                outbox.add(announcer, CANCELLED, {"order_id": order_id})
    return row is not None
