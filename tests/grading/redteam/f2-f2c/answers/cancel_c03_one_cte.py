# CORRECT: one statement: the UPDATE and the outbox INSERT in a CTE (one statement is one transaction)
def cancel_order(conn, order_id):
    made = conn.execute("""
        WITH c AS (
            UPDATE orders SET status = 'cancelled' WHERE id = %(id)s AND status = 'placed' RETURNING id)
        INSERT INTO outbox (subject, payload)
        SELECT %(subject)s, jsonb_build_object('order_id', c.id) FROM c
        RETURNING id""", {"id": order_id, "subject": CANCELLED}).fetchall()
    return len(made) == 1
