# exercise: 12.safe_checkout
# expect: wrong
# rule: charge-outside: the charge is made inside the confirm's transaction, after locking the row FOR UPDATE
def finish_with_charge(conn, booking_id, guest_id, room_id, nights):
    with conn.transaction():
        row = conn.execute("SELECT status FROM bookings WHERE id = %s FOR UPDATE", [booking_id]).fetchone()
        if row is None or row[0] != "pending":
            return False
        payment = stayhub.charge(conn, guest_id, room_id, nights, idempotency_key=stayhub.checkout_key(booking_id))
        conn.execute("UPDATE bookings SET status = 'confirmed', payment_ref = %s WHERE id = %s", [payment.ref, booking_id])
        for job_type in stayhub.SIDE_JOBS:
            queue.enqueue(conn, job_type, {"booking_id": booking_id})
    return True


def safe_checkout(conn, guest_id, room_id, nights):
    booking_id = stayhub.insert_pending(conn, guest_id, room_id, nights)
    finish_with_charge(conn, booking_id, guest_id, room_id, nights)
    return booking_id


def reconcile(conn):
    rows = conn.execute("SELECT id, guest_id, room_id, nights FROM bookings WHERE status = 'pending'").fetchall()
    for booking_id, guest_id, room_id, nights in rows:
        finish_with_charge(conn, booking_id, guest_id, room_id, nights)
