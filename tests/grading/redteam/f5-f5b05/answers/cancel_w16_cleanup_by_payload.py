# announce/one-transaction: announces first, then, when the UPDATE changed nothing, deletes the cancellation rows of that order by payload: a second click deletes the FIRST click's committed outbox row too
def cancel_order(conn, order_id):
    with conn.transaction():
        outbox.add(conn, CANCELLED, {"order_id": order_id})
        row = conn.execute(
            "UPDATE orders SET status = 'cancelled' WHERE id = %s AND status = 'placed' RETURNING id",
            [order_id]).fetchone()
        if row is None:
            conn.execute("DELETE FROM outbox WHERE subject = %s AND payload->>'order_id' = %s",
                         [CANCELLED, str(order_id)])
    return row is not None
