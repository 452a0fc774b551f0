# correct, unlike the obvious: finish locks the row (FOR UPDATE, inside the confirm's own transaction,
# after the charge), checks its status in Python, then updates; reconcile walks the pending rows by
# keyset (one row per query), newest first.
def finish(conn, booking_id, payment):
    with conn.transaction():
        row = conn.execute("SELECT status FROM bookings WHERE id = %s FOR UPDATE", [booking_id]).fetchone()
        if row is None or row[0] != "pending":
            return False
        conn.execute("UPDATE bookings SET status = 'confirmed', payment_ref = %s WHERE id = %s",
                     [payment.ref, booking_id])
        for kind in stayhub.SIDE_JOBS:
            queue.enqueue(conn, kind, {"booking_id": booking_id})
    return True


def safe_checkout(conn, guest_id, room_id, nights):
    booking_id = stayhub.insert_pending(conn, guest_id, room_id, nights)
    key = stayhub.checkout_key(booking_id)
    finish(conn, booking_id, stayhub.charge(conn, guest_id, room_id, nights, idempotency_key=key))
    return booking_id


def reconcile(conn):
    finished, below = 0, None
    while True:
        row = conn.execute("SELECT id, guest_id, room_id, nights FROM bookings WHERE status = 'pending' "
                           "AND (%(below)s::bigint IS NULL OR id < %(below)s) ORDER BY id DESC LIMIT 1",
                           {"below": below}).fetchone()
        if row is None:
            return finished
        below, guest_id, room_id, nights = row
        payment = stayhub.charge(conn, guest_id, room_id, nights, idempotency_key=stayhub.checkout_key(below))
        finished += finish(conn, below, payment)
