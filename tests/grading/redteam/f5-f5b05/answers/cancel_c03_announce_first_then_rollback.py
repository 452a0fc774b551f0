# correct: writes the outbox row first, then tries the conditional UPDATE; when nothing was cancelled it rolls its own (nested) transaction back with psycopg.Rollback, so no row is left
import psycopg


def cancel_order(conn, order_id):
    cancelled = False
    with conn.transaction() as tx:
        outbox.add(conn, CANCELLED, {"order_id": order_id})
        changed = conn.execute(
            "UPDATE orders SET status = 'cancelled' WHERE status = 'placed' AND id = %(id)s",
            {"id": order_id}).rowcount
        if changed != 1:
            raise psycopg.Rollback(tx)
        cancelled = True
    return cancelled
