# correct: one statement does both writes (a data-modifying CTE feeds the outbox INSERT), so it is atomic with no transaction block of its own, and inside a caller's transaction too
def cancel_order(conn, order_id):
    row = conn.execute(
        """
        WITH cancelled AS (
            UPDATE orders SET status = 'cancelled'
            WHERE id = %(order_id)s AND status = 'placed'
            RETURNING id
        )
        INSERT INTO outbox (subject, payload)
        SELECT %(subject)s, jsonb_build_object('order_id', id) FROM cancelled
        RETURNING id
        """, {"order_id": order_id, "subject": CANCELLED}).fetchone()
    return row is not None
