# exercise: 05.cancel_order
# kind: wrong
# rule: announce (payload carries data beyond the id: status and total)
def cancel_order(conn, order_id):
    with conn.transaction():
        done = conn.execute("UPDATE orders SET status = 'cancelled' WHERE id = %s AND status = 'placed' "
                            "RETURNING id, total_cents", [order_id]).fetchone()
        if done:
            outbox.add(conn, CANCELLED, {"order_id": order_id, "status": "cancelled", "total_cents": done[1]})
    return done is not None
