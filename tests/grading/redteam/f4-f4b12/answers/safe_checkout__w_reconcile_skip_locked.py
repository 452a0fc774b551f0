# WRONG (charge-outside): reconcile written like a queue consumer: the pending rows locked FOR UPDATE
# SKIP LOCKED in a transaction "so two reconcilers never take the same booking", charged inside it.
def finish(conn, booking_id, payment):
    with conn.transaction():
        if conn.execute("UPDATE bookings SET status = 'confirmed', payment_ref = %s WHERE id = %s AND status = 'pending'",
                        [payment.ref, booking_id]).rowcount != 1:
            return False
        for kind in stayhub.SIDE_JOBS:
            queue.enqueue(conn, kind, {"booking_id": booking_id})
    return True


def safe_checkout(conn, guest_id, room_id, nights):
    booking_id = stayhub.insert_pending(conn, guest_id, room_id, nights)
    finish(conn, booking_id, stayhub.charge(conn, guest_id, room_id, nights, idempotency_key=stayhub.checkout_key(booking_id)))
    return booking_id


def reconcile(conn):
    n = 0
    with conn.transaction():
        rows = conn.execute("SELECT id, guest_id, room_id, nights FROM bookings WHERE status = 'pending' "
                            "ORDER BY id FOR UPDATE SKIP LOCKED").fetchall()
        for b, g, r, nights in rows:
            n += finish(conn, b, stayhub.charge(conn, g, r, nights, idempotency_key=stayhub.checkout_key(b)))
    return n
