# exercise: 12.safe_checkout
# cell: b374957a
# rule: confirm-once / one transaction (confirms, commits, then enqueues: a crash between leaves a confirmed booking with no jobs)
def finish(conn, booking_id, payment):
    confirmed = conn.execute("UPDATE bookings SET status = 'confirmed', payment_ref = %s "
                             "WHERE id = %s AND status = 'pending' RETURNING id", [payment.ref, booking_id]).fetchone()
    if confirmed is None:
        return False
    for kind in stayhub.SIDE_JOBS:
        queue.enqueue(conn, kind, {"booking_id": booking_id})
    return True


def safe_checkout(conn, guest_id, room_id, nights):
    booking_id = stayhub.insert_pending(conn, guest_id, room_id, nights)
    payment = stayhub.charge(conn, guest_id, room_id, nights, idempotency_key=stayhub.checkout_key(booking_id))
    finish(conn, booking_id, payment)
    return booking_id


def reconcile(conn):
    for booking_id, guest_id, room_id, nights in conn.execute(
            "SELECT id, guest_id, room_id, nights FROM bookings WHERE status = 'pending'").fetchall():
        finish(conn, booking_id, stayhub.charge(conn, guest_id, room_id, nights,
                                                idempotency_key=stayhub.checkout_key(booking_id)))
