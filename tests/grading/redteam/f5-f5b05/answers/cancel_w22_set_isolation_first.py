# given-connection: opens its transaction with SET TRANSACTION ISOLATION LEVEL READ COMMITTED "to be explicit": inside a caller's transaction that has already run a query, PostgreSQL refuses it and the cancel fails
def cancel_order(conn, order_id):
    with conn.transaction():
        conn.execute("SET TRANSACTION ISOLATION LEVEL READ COMMITTED")
        row = conn.execute(
            "UPDATE orders SET status = 'cancelled' WHERE id = %s AND status = 'placed' RETURNING id",
            [order_id]).fetchone()
        if row:
            outbox.add(conn, CANCELLED, {"order_id": order_id})
    return row is not None
