# exercise: 12.safe_checkout
# cell: b374957a
# rule: charge-outside (reconcile locks each pending row FOR UPDATE and charges inside that transaction)
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
    ids = [r[0] for r in conn.execute("SELECT id FROM bookings WHERE status = 'pending'").fetchall()]
    for booking_id in ids:
        with conn.transaction():
            row = conn.execute("SELECT guest_id, room_id, nights FROM bookings WHERE id = %s AND status = 'pending' "
                               "FOR UPDATE SKIP LOCKED", [booking_id]).fetchone()
            if row is None:
                continue
            payment = stayhub.charge(conn, *row, idempotency_key=stayhub.checkout_key(booking_id))
            finish(conn, booking_id, payment)
