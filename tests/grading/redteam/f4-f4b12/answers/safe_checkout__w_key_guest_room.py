# WRONG (idempotency-key): a key of one's own, the same in checkout and reconcile, but named after the
# stay (guest, room, nights), not the booking: a guest's second identical booking gets the first's
# authorisation back and is never charged.
def _key(guest_id, room_id, nights):
    return f"checkout:{guest_id}:{room_id}:{nights}"


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
    finish(conn, booking_id, stayhub.charge(conn, guest_id, room_id, nights, idempotency_key=_key(guest_id, room_id, nights)))
    return booking_id


def reconcile(conn):
    n = 0
    for b, g, r, nights in conn.execute("SELECT id, guest_id, room_id, nights FROM bookings WHERE status = 'pending'").fetchall():
        n += finish(conn, b, stayhub.charge(conn, g, r, nights, idempotency_key=_key(g, r, nights)))
    return n
