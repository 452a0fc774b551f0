# exercise: 05.cancel_order
# kind: wrong
# rule: still-placed (tries NOWAIT three times 0.1 s apart, then False though the kitchen rolls back later)
import time
import psycopg

def cancel_order(conn, order_id):
    for attempt in range(3):
        try:
            with conn.transaction():
                row = conn.execute("SELECT status FROM orders WHERE id = %s FOR UPDATE NOWAIT", [order_id]).fetchone()
                if row is None or row[0] != "placed":
                    return False
                conn.execute("UPDATE orders SET status = 'cancelled' WHERE id = %s", [order_id])
                outbox.add(conn, CANCELLED, {"order_id": order_id})
                return True
        except psycopg.errors.LockNotAvailable:
            time.sleep(0.1)
    return False
