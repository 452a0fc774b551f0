# exercise: 05.cancel_order
# kind: wrong
# rule: given-connection (opens its own connection to SCHEMA)
def cancel_order(conn, order_id):
    with db.connect(SCHEMA) as own:
        with own.transaction():
            done = own.execute("UPDATE orders SET status = 'cancelled' WHERE id = %s AND status = 'placed' "
                               "RETURNING id", [order_id]).fetchone()
            if done:
                outbox.add(own, CANCELLED, {"order_id": order_id})
    return done is not None
