# correct: opens the transaction by hand: BEGIN/COMMIT when the connection is idle, SAVEPOINT/RELEASE inside a caller's transaction, rolling back to it on any failure
from psycopg.pq import TransactionStatus


def cancel_order(conn, order_id):
    nested = conn.info.transaction_status != TransactionStatus.IDLE
    conn.execute("SAVEPOINT cancel_order" if nested else "BEGIN")
    try:
        hit = conn.execute("UPDATE orders SET status = 'cancelled' WHERE id = %s AND status = 'placed' RETURNING id",
                           [order_id]).fetchone()
        if hit:
            outbox.add(conn, CANCELLED, {"order_id": order_id})
    except BaseException:
        conn.execute("ROLLBACK TO SAVEPOINT cancel_order" if nested else "ROLLBACK")
        raise
    conn.execute("RELEASE SAVEPOINT cancel_order" if nested else "COMMIT")
    return bool(hit)
