# exercise: 05.cancel_order
# kind: wrong
# rule: still-placed (lock_timeout 5 s: gives up on a held row; the known open item)
import psycopg

def cancel_order(conn, order_id):
    try:
        with conn.transaction():
            conn.execute("SET LOCAL lock_timeout = '5s'")
            done = conn.execute("UPDATE orders SET status = 'cancelled' WHERE id = %s AND status = 'placed' "
                                "RETURNING id", [order_id]).fetchone()
            if done:
                outbox.add(conn, CANCELLED, {"order_id": order_id})
    except psycopg.errors.LockNotAvailable:
        return False
    return done is not None
