# exercise: 12.safe_checkout
# cell: b374957a
# rule: correct (finish locks the row in its own transaction, then checks; reconcile walks the pending ids one by one)
def finish(conn, booking_id, payment):
    with conn.transaction():
        row = conn.execute("SELECT status FROM bookings WHERE id = %s FOR UPDATE", [booking_id]).fetchone()
        if row is None or row[0] != "pending":
            return False
        conn.execute("UPDATE bookings SET status = 'confirmed', payment_ref = %s WHERE id = %s",
                     [payment.ref, booking_id])
        for kind in stayhub.SIDE_JOBS:
            queue.enqueue(conn, kind, {"booking_id": booking_id}, max_attempts=stayhub.MAX_ATTEMPTS)
    return True


def _charge_and_finish(conn, booking_id, guest_id, room_id, nights):
    key = stayhub.checkout_key(booking_id)
    return finish(conn, booking_id, stayhub.charge(conn, guest_id, room_id, nights, idempotency_key=key))


def safe_checkout(conn, guest_id, room_id, nights):
    booking_id = stayhub.insert_pending(conn, guest_id, room_id, nights)
    _charge_and_finish(conn, booking_id, guest_id, room_id, nights)
    return booking_id


def reconcile(conn):
    last, finished = 0, 0
    while True:
        row = conn.execute("SELECT id, guest_id, room_id, nights FROM bookings "
                           "WHERE status = 'pending' AND id > %s ORDER BY id LIMIT 1", [last]).fetchone()
        if row is None:
            return finished
        last = row[0]
        finished += _charge_and_finish(conn, *row)
