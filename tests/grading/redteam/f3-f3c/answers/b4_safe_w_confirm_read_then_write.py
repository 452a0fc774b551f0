# exercise: 12.safe_checkout
# cell: b374957a
# rule: confirm-once (reads the status, then updates by id: a reconcile between the two also confirms, six jobs)
def finish(conn, booking_id, payment):
    with conn.transaction():
        status = conn.execute("SELECT status FROM bookings WHERE id = %s", [booking_id]).fetchone()[0]
        if status != "pending":
            return False
        conn.execute("UPDATE bookings SET status = 'confirmed', payment_ref = %s WHERE id = %s",
                     [payment.ref, booking_id])
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
            "SELECT id, guest_id, room_id, nights FROM bookings WHERE status = 'pending' ORDER BY id").fetchall():
        payment = stayhub.charge(conn, guest_id, room_id, nights, idempotency_key=stayhub.checkout_key(booking_id))
        finish(conn, booking_id, payment)
