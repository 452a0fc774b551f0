# exercise: 12.safe_checkout
# cell: b374957a
# rule: reconcile-all (finishes only pending bookings the provider already authorised, read from its record; one crashed before its charge stays pending)
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
    rows = conn.execute("SELECT b.id, a.payment_ref, a.total_cents FROM bookings b "
                        "JOIN card_authorisations a ON a.idempotency_key = 'checkout:' || b.id "
                        "WHERE b.status = 'pending'").fetchall()
    for booking_id, ref, total in rows:
        finish(conn, booking_id, stayhub.Payment(ref, total))
