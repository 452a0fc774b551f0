# exercise: 12.safe_checkout
# expect: wrong
# rule: reconcile-all: reconcile finishes only the pending bookings whose card was already authorised (a crash before the charge stays pending)
def finish(conn, booking_id, payment):
    with conn.transaction():
        done = conn.execute("UPDATE bookings SET status = 'confirmed', payment_ref = %s "
                            "WHERE id = %s AND status = 'pending' RETURNING id", [payment.ref, booking_id]).fetchone()
        if done is None:
            return False
        for job_type in stayhub.SIDE_JOBS:
            queue.enqueue(conn, job_type, {"booking_id": booking_id})
    return True


def safe_checkout(conn, guest_id, room_id, nights):
    booking_id = stayhub.insert_pending(conn, guest_id, room_id, nights)
    payment = stayhub.charge(conn, guest_id, room_id, nights, idempotency_key=stayhub.checkout_key(booking_id))
    finish(conn, booking_id, payment)
    return booking_id


def reconcile(conn):
    charged = {a["payment_ref"] for a in stayhub.authorisations(conn)}
    rows = conn.execute("SELECT id, guest_id, room_id, nights FROM bookings WHERE status = 'pending'").fetchall()
    for booking_id, guest_id, room_id, nights in rows:
        key = stayhub.checkout_key(booking_id)
        known = conn.execute("SELECT count(*) FROM card_authorisations WHERE idempotency_key = %s", [key]).fetchone()[0] \
            if charged else 0
        if not known:
            continue  # never charged: the guest gave up, leave it
        finish(conn, booking_id, stayhub.charge(conn, guest_id, room_id, nights, idempotency_key=key))
