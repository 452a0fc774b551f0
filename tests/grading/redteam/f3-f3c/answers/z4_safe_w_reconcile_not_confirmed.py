# exercise: 12.safe_checkout
# cell: b374957a
# rule: reconcile-all / charge only what it finishes (reconcile picks status <> 'confirmed': a cancelled booking's card is authorised again, though finish then leaves it cancelled)
def finish(conn, booking_id, payment):
    with conn.transaction():
        row = conn.execute("UPDATE bookings SET status = 'confirmed', payment_ref = %s "
                           "WHERE id = %s AND status = 'pending' RETURNING id", [payment.ref, booking_id]).fetchone()
        if row is None:
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
    unfinished = conn.execute("SELECT id, guest_id, room_id, nights FROM bookings WHERE status <> 'confirmed'").fetchall()
    for booking_id, guest_id, room_id, nights in unfinished:
        finish(conn, booking_id, stayhub.charge(conn, guest_id, room_id, nights,
                                                idempotency_key=stayhub.checkout_key(booking_id)))
