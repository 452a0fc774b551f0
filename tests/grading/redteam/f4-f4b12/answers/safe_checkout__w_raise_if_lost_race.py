# WRONG (return-id): safe_checkout raises when its finish changed nothing ("someone else finished it"):
# the booking is confirmed and paid, and the guest gets an error page.
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
    if not finish(conn, booking_id, payment):
        raise RuntimeError(f"booking {booking_id} was finished by someone else")
    return booking_id


def reconcile(conn):
    n = 0
    for b, g, r, nights in conn.execute("SELECT id, guest_id, room_id, nights FROM bookings WHERE status = 'pending'").fetchall():
        n += finish(conn, b, stayhub.charge(conn, g, r, nights, idempotency_key=stayhub.checkout_key(b)))
    return n
