# exercise: 05.cancel_order
# kind: correct
# rule: correct (one statement: UPDATE in a CTE feeding the outbox INSERT)
CANCEL = '''
WITH gone AS (
    UPDATE orders SET status = 'cancelled'
    WHERE id = %(id)s AND status = 'placed'
    RETURNING id
)
INSERT INTO outbox (subject, payload)
SELECT %(subject)s, jsonb_build_object('order_id', gone.id) FROM gone
RETURNING id
'''

def cancel_order(conn, order_id):
    return conn.execute(CANCEL, {"id": order_id, "subject": CANCELLED}).fetchone() is not None
