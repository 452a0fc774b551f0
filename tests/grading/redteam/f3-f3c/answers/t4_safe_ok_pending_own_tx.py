# exercise: 12.safe_checkout
# cell: b374957a
# rule: correct (pending row committed by its own with-block, reconcile reads with SKIP LOCKED on autocommit, finish in a CTE guard)
def finish(conn, booking_id, payment):
    with conn.transaction():
        done = conn.execute("""
            WITH upd AS (
                UPDATE bookings SET status = 'confirmed', payment_ref = %(ref)s
                WHERE id = %(id)s AND status = 'pending'
                RETURNING id)
            SELECT count(*) FROM upd""", {"ref": payment.ref, "id": booking_id}).fetchone()[0]
        if not done:
            return False
        for kind in stayhub.SIDE_JOBS:
            queue.enqueue(conn, kind, {"booking_id": booking_id})
    return True


def safe_checkout(conn, guest_id, room_id, nights):
    with conn.transaction():
        booking_id = stayhub.insert_pending(conn, guest_id, room_id, nights)
    key = stayhub.checkout_key(booking_id)
    finish(conn, booking_id, stayhub.charge(conn, guest_id, room_id, nights, idempotency_key=key))
    return booking_id


def reconcile(conn):
    pending = conn.execute("SELECT id, guest_id, room_id, nights FROM bookings WHERE status = 'pending' "
                           "FOR UPDATE SKIP LOCKED").fetchall()
    return sum(finish(conn, b, stayhub.charge(conn, g, r, n, idempotency_key=stayhub.checkout_key(b)))
               for b, g, r, n in pending)
