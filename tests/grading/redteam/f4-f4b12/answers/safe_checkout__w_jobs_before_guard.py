# WRONG (confirm-once): the jobs enqueued first, then the guarded confirm; when the booking is no longer
# pending it returns False from inside `with conn.transaction()`, which COMMITS the three jobs it just
# enqueued: the second finisher adds three more.
def finish(conn, booking_id, payment):
    with conn.transaction():
        for kind in stayhub.SIDE_JOBS:
            queue.enqueue(conn, kind, {"booking_id": booking_id})
        updated = conn.execute("UPDATE bookings SET status = 'confirmed', payment_ref = %s "
                               "WHERE id = %s AND status = 'pending' RETURNING id", [payment.ref, booking_id]).fetchone()
        if updated is None:
            return False
    return True


def safe_checkout(conn, guest_id, room_id, nights):
    booking_id = stayhub.insert_pending(conn, guest_id, room_id, nights)
    finish(conn, booking_id, stayhub.charge(conn, guest_id, room_id, nights, idempotency_key=stayhub.checkout_key(booking_id)))
    return booking_id


def reconcile(conn):
    n = 0
    for b, g, r, nights in conn.execute("SELECT id, guest_id, room_id, nights FROM bookings WHERE status = 'pending'").fetchall():
        n += finish(conn, b, stayhub.charge(conn, g, r, nights, idempotency_key=stayhub.checkout_key(b)))
    return n
