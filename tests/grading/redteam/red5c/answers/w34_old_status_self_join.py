# Rule broken: still-placed. Updates by id and reads "the old status" from a self-join in the same
# statement, then rolls back if it was not placed: the joined copy is the statement's snapshot, not the
# row it waited for.
import psycopg


def cancel_order(conn, order_id):
    cancelled = False
    with conn.transaction() as tx:
        row = conn.execute(
            "UPDATE orders o SET status = 'cancelled' FROM orders old "
            "WHERE o.id = %s AND old.id = o.id RETURNING old.status", [order_id]).fetchone()
        if row is None or row[0] != "placed":
            raise psycopg.Rollback(tx)
        outbox.add(conn, CANCELLED, {"order_id": order_id})
        cancelled = True
    return cancelled
