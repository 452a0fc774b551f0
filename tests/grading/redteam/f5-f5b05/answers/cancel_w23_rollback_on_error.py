# given-connection: "belt and braces": after a failure it sends ROLLBACK itself before re-raising; on its own that is a no-op, but inside a caller's transaction it ends the caller's whole transaction (its earlier writes too), not just the cancel
def cancel_order(conn, order_id):
    try:
        with conn.transaction():
            row = conn.execute(
                "UPDATE orders SET status = 'cancelled' WHERE id = %s AND status = 'placed' RETURNING id",
                [order_id]).fetchone()
            if row:
                outbox.add(conn, CANCELLED, {"order_id": order_id})
    except Exception:
        conn.execute("ROLLBACK")   # leave nothing half-done
        raise
    return row is not None
