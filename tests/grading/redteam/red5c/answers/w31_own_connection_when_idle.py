# Rule broken: given-connection, adversarial: a connection of its own whenever the caller has no
# transaction open (the usual case), the given one only inside a caller's transaction.
import psycopg
from psycopg.pq import TransactionStatus


def _cancel(c, order_id):
    with c.transaction():
        row = c.execute("UPDATE orders SET status = 'cancelled' WHERE id = %s AND status = 'placed' "
                        "RETURNING id", [order_id]).fetchone()
        if row is not None:
            outbox.add(c, CANCELLED, {"order_id": order_id})
    return row is not None


def cancel_order(conn, order_id):
    if conn.info.transaction_status != TransactionStatus.IDLE:
        return _cancel(conn, order_id)
    search_path = conn.execute("SHOW search_path").fetchone()[0]
    with psycopg.connect(conn.info.dsn, autocommit=True) as mine:
        mine.execute(f"SET search_path TO {search_path}")
        return _cancel(mine, order_id)
