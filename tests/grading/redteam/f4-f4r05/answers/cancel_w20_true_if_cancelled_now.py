# exercise: 05.cancel_order
# kind: wrong
# rule: returns (True when the order is cancelled afterwards, even by an earlier click)
def cancel_order(conn, order_id):
    with conn.transaction():
        done = conn.execute("UPDATE orders SET status = 'cancelled' WHERE id = %s AND status = 'placed' RETURNING id",
                            [order_id]).fetchone()
        if done:
            outbox.add(conn, CANCELLED, {"order_id": order_id})
    now = conn.execute("SELECT status FROM orders WHERE id = %s", [order_id]).fetchone()
    return now is not None and now[0] == "cancelled"
