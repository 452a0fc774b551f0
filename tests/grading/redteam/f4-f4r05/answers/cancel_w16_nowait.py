# exercise: 05.cancel_order
# kind: wrong
# rule: still-placed (FOR UPDATE NOWAIT: gives up at once on a held row)
import psycopg

def cancel_order(conn, order_id):
    try:
        with conn.transaction():
            row = conn.execute("SELECT status FROM orders WHERE id = %s FOR UPDATE NOWAIT", [order_id]).fetchone()
            if row is None or row[0] != "placed":
                return False
            conn.execute("UPDATE orders SET status = 'cancelled' WHERE id = %s", [order_id])
            outbox.add(conn, CANCELLED, {"order_id": order_id})
    except psycopg.errors.LockNotAvailable:
        return False
    return True
