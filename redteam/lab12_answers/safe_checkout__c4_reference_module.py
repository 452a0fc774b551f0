# expect: pass correct: reconcile newest first, a helper for the charge
def finish(conn, booking_id, payment):
    with conn.transaction():
        row = conn.execute("UPDATE bookings SET status = 'confirmed', payment_ref = %s "
                           "WHERE id = %s AND status = 'pending' RETURNING id", [payment.ref, booking_id]).fetchone()
        if row is None:
            return False
        for job_type in stayhub.SIDE_JOBS:
            queue.enqueue(conn, job_type, {"booking_id": booking_id})
    return True

def charge_for(conn, booking_id, guest_id, room_id, nights):
    return stayhub.charge(conn, guest_id, room_id, nights, idempotency_key=stayhub.checkout_key(booking_id))


def safe_checkout(conn, guest_id, room_id, nights):
    booking_id = stayhub.insert_pending(conn, guest_id, room_id, nights)
    finish(conn, booking_id, charge_for(conn, booking_id, guest_id, room_id, nights))
    return booking_id

def reconcile(conn):
    pending = conn.execute("SELECT id, guest_id, room_id, nights FROM bookings WHERE status = 'pending' ORDER BY id DESC").fetchall()
    return sum(1 for b, g, r, n in pending if finish(conn, b, charge_for(conn, b, g, r, n)))
