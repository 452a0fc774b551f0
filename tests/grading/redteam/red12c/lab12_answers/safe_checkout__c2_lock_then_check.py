# correct: finish locks the row (FOR UPDATE), reads its status, then updates; reconcile reads with stayhub.booking-less SQL, newest first
def finish(conn, booking_id, payment):
    with conn.transaction():
        status = conn.execute("SELECT status FROM bookings WHERE id = %s FOR UPDATE", [booking_id]).fetchone()
        if status is None or status[0] != "pending":
            return
        conn.execute("UPDATE bookings SET status = 'confirmed', payment_ref = %s WHERE id = %s",
                     [payment.ref, booking_id])
        for kind in stayhub.SIDE_JOBS:
            queue.enqueue(conn, kind, {"booking_id": booking_id}, max_attempts=stayhub.MAX_ATTEMPTS)


def safe_checkout(conn, guest_id, room_id, nights):
    bid = stayhub.insert_pending(conn, guest_id, room_id, nights)
    key = stayhub.checkout_key(bid)
    finish(conn, bid, stayhub.charge(conn, guest_id, room_id, nights, idempotency_key=key))
    return bid


def reconcile(conn):
    done = []
    for bid, g, r, n in conn.execute("SELECT id, guest_id, room_id, nights FROM bookings "
                                     "WHERE status = 'pending' ORDER BY id DESC").fetchall():
        finish(conn, bid, stayhub.charge(conn, g, r, n, idempotency_key=stayhub.checkout_key(bid)))
        done.append(bid)
    return done
