# Correct: one statement, a CTE; the outbox row inserted by SQL from the UPDATE's RETURNING.
def cancel_order(conn, order_id):
    with conn.transaction():
        rows = conn.execute(
            """
            WITH cancelled AS (
                UPDATE orders SET status = 'cancelled'
                WHERE id = %(id)s AND status = 'placed'
                RETURNING id
            )
            INSERT INTO outbox (subject, payload)
            SELECT %(subject)s, jsonb_build_object('order_id', c.id) FROM cancelled AS c
            RETURNING id
            """,
            {"id": order_id, "subject": CANCELLED},
        ).fetchall()
    return len(rows) == 1
