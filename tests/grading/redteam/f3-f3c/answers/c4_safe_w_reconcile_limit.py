# exercise: 12.safe_checkout
# cell: b374957a
# rule: reconcile-all (finishes at most 3 pending bookings a run: correct with a few leftovers only)
def finish(conn, booking_id, payment):
    with conn.transaction():
        if conn.execute("UPDATE bookings SET status = 'confirmed', payment_ref = %s "
                        "WHERE id = %s AND status = 'pending'", [payment.ref, booking_id]).rowcount != 1:
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
    batch = conn.execute("SELECT id, guest_id, room_id, nights FROM bookings WHERE status = 'pending' "
                         "ORDER BY created_at LIMIT 3").fetchall()
    for booking_id, guest_id, room_id, nights in batch:
        payment = stayhub.charge(conn, guest_id, room_id, nights, idempotency_key=stayhub.checkout_key(booking_id))
        finish(conn, booking_id, payment)
    return len(batch)
