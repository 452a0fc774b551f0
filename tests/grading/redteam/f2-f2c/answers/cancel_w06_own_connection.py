# WRONG (given-connection): opens its own connection on the same database and search_path
import psycopg


def cancel_order(conn, order_id):
    path = conn.execute("SHOW search_path").fetchone()[0]
    with psycopg.connect(conn.info.dsn, autocommit=True) as mine:
        mine.execute(f"SET search_path TO {path}")
        with mine.transaction():
            row = mine.execute("UPDATE orders SET status = 'cancelled' WHERE id = %s AND status = 'placed' "
                               "RETURNING id", [order_id]).fetchone()
            if row:
                outbox.add(mine, CANCELLED, {"order_id": order_id})
    return row is not None
