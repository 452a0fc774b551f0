# one-transaction: a failure to store the outbox row is logged and swallowed; the function returns False and the failure never reaches the caller
import logging


def cancel_order(conn, order_id):
    with conn.transaction():
        row = conn.execute(
            "UPDATE orders SET status = 'cancelled' WHERE id = %s AND status = 'placed' RETURNING id",
            [order_id]).fetchone()
        if row is None:
            return False
        try:
            with conn.transaction():
                outbox.add(conn, CANCELLED, {"order_id": order_id})
        except Exception:
            logging.getLogger("tiffin").exception("could not announce the cancellation of %s", order_id)
            return False
    return True
