# exercise: 12.safe_checkout
# expect: correct
# rule: correct: finish locks the row (SELECT ... FOR UPDATE) then checks status in Python, all in one transaction
def finish(conn, booking_id, payment):
    with conn.transaction():
        row = conn.execute("SELECT status FROM bookings WHERE id = %s FOR UPDATE", [booking_id]).fetchone()
        if row is None or row[0] != "pending":
            return False
        conn.execute("UPDATE bookings SET status = 'confirmed', payment_ref = %s WHERE id = %s",
                     [payment.ref, booking_id])
        for job_type in stayhub.SIDE_JOBS:
            queue.enqueue(conn, job_type, {"booking_id": booking_id})
        return True


def safe_checkout(conn, guest_id, room_id, nights):
    booking_id = stayhub.insert_pending(conn, guest_id, room_id, nights)
    payment = stayhub.charge(conn, guest_id, room_id, nights, idempotency_key=stayhub.checkout_key(booking_id))
    finish(conn, booking_id, payment)
    return booking_id


def reconcile(conn):
    ids = [r[0] for r in conn.execute("SELECT id FROM bookings WHERE status = 'pending'")]
    for booking_id in ids:
        g, r, n = conn.execute("SELECT guest_id, room_id, nights FROM bookings WHERE id = %s", [booking_id]).fetchone()
        finish(conn, booking_id, stayhub.charge(conn, g, r, n, idempotency_key=stayhub.checkout_key(booking_id)))
