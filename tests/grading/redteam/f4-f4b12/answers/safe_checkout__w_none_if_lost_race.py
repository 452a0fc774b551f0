# WRONG (return-id): safe_checkout returns None when its finish changed nothing ("reconcile finished it,
# not us"), though the booking is confirmed: the caller is told nothing was booked.
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
    payment = stayhub.charge(conn, guest_id, room_id, nights, idempotency_key=stayhub.checkout_key(booking_id))
    return booking_id if finish(conn, booking_id, payment) else None


def reconcile(conn):
    n = 0
    for b, g, r, nights in conn.execute("SELECT id, guest_id, room_id, nights FROM bookings WHERE status = 'pending'").fetchall():
        n += finish(conn, b, stayhub.charge(conn, g, r, nights, idempotency_key=stayhub.checkout_key(b)))
    return n
