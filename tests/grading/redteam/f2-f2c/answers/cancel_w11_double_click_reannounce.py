# WRONG (still-placed / announce): a cancelled order counts as cancellable again, so a double click
# announces twice
def cancel_order(conn, order_id):
    with conn.transaction():
        row = conn.execute("UPDATE orders SET status = 'cancelled' WHERE id = %s AND status IN ('placed', 'cancelled') "
                           "RETURNING id", [order_id]).fetchone()
        if row:
            outbox.add(conn, CANCELLED, {"order_id": order_id})
    return row is not None
