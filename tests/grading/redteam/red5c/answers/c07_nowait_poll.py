# Correct: NOWAIT, retried until the lock is free (it waits, by polling, instead of giving up).
import time

import psycopg.errors


def cancel_order(conn, order_id):
    while True:
        try:
            with conn.transaction():
                row = conn.execute("SELECT status FROM orders WHERE id = %s FOR UPDATE NOWAIT",
                                   [order_id]).fetchone()
                if row is None or row[0] != "placed":
                    return False
                conn.execute("UPDATE orders SET status = 'cancelled' WHERE id = %s", [order_id])
                outbox.add(conn, CANCELLED, {"order_id": order_id})
                return True
        except psycopg.errors.LockNotAvailable:
            time.sleep(0.02)
