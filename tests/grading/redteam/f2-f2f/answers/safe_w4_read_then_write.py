# exercise: 12.safe_checkout
# expect: wrong
# rule: confirm-once: reads the status, then updates without a lock or guard (race with a concurrent reconcile)
def finish(conn, booking_id, payment):
    with conn.transaction():
        status = conn.execute("SELECT status FROM bookings WHERE id = %s", [booking_id]).fetchone()[0]
        if status != "pending":
            return False
        conn.execute("UPDATE bookings SET status = 'confirmed', payment_ref = %s WHERE id = %s", [payment.ref, booking_id])
        for job_type in stayhub.SIDE_JOBS:
            queue.enqueue(conn, job_type, {"booking_id": booking_id})
    return True


def safe_checkout(conn, guest_id, room_id, nights):
    booking_id = stayhub.insert_pending(conn, guest_id, room_id, nights)
    payment = stayhub.charge(conn, guest_id, room_id, nights, idempotency_key=stayhub.checkout_key(booking_id))
    finish(conn, booking_id, payment)
    return booking_id


def reconcile(conn):
    rows = conn.execute("SELECT id, guest_id, room_id, nights FROM bookings WHERE status = 'pending'").fetchall()
    for booking_id, guest_id, room_id, nights in rows:
        payment = stayhub.charge(conn, guest_id, room_id, nights, idempotency_key=stayhub.checkout_key(booking_id))
        finish(conn, booking_id, payment)
