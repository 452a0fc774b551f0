# exercise: 12.safe_checkout
# cell: b374957a
# rule: confirm-once (lab 06's unique keys instead of "only if still pending": the update always runs, and once the first jobs are done a second finish enqueues them again; a cancelled booking gets confirmed)
def finish(conn, booking_id, payment):
    with conn.transaction():
        conn.execute("UPDATE bookings SET status = 'confirmed', payment_ref = %s WHERE id = %s",
                     [payment.ref, booking_id])
        made = [queue.enqueue(conn, kind, {"booking_id": booking_id}, unique_key=f"{kind}:{booking_id}")
                for kind in stayhub.SIDE_JOBS]
    return any(made)


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
