# expect: fail pending-first: explicit BEGIN, pending, charge, then finish commits all (pending committed after the charge)
def finish(conn, booking_id, payment):
    conn.execute("UPDATE bookings SET status = 'confirmed', payment_ref = %s WHERE id = %s AND status = 'pending'", [payment.ref, booking_id])
    for job_type in stayhub.SIDE_JOBS:
        queue.enqueue(conn, job_type, {"booking_id": booking_id})

def safe_checkout(conn, guest_id, room_id, nights):
    conn.execute("BEGIN")
    try:
        booking_id = stayhub.insert_pending(conn, guest_id, room_id, nights)
        payment = stayhub.charge(conn, guest_id, room_id, nights, idempotency_key=stayhub.checkout_key(booking_id))
        finish(conn, booking_id, payment)
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")
    return booking_id

def reconcile(conn):
    rows = conn.execute("SELECT id, guest_id, room_id, nights FROM bookings WHERE status = 'pending' ORDER BY id").fetchall()
    for booking_id, guest_id, room_id, nights in rows:
        payment = stayhub.charge(conn, guest_id, room_id, nights, idempotency_key=stayhub.checkout_key(booking_id))
        with conn.transaction():
            finish(conn, booking_id, payment)
