# exercise: 12.safe_checkout
# expect: correct
# rule: correct: rowcount instead of RETURNING, reconcile reads with a dict cursor newest first
from psycopg.rows import dict_row


def finish(conn, booking_id, payment):
    with conn.transaction():
        cur = conn.execute("UPDATE bookings SET status = 'confirmed', payment_ref = %s "
                           "WHERE status = 'pending' AND id = %s", (payment.ref, booking_id))
        if cur.rowcount != 1:
            return False
        for job_type in stayhub.SIDE_JOBS:
            queue.enqueue(conn, job_type, payload={"booking_id": booking_id}, max_attempts=stayhub.MAX_ATTEMPTS)
    return True


def safe_checkout(conn, guest_id, room_id, nights):
    booking_id = stayhub.insert_pending(conn, guest_id, room_id, nights)
    key = stayhub.checkout_key(booking_id)
    payment = stayhub.charge(conn, guest_id, room_id, nights, idempotency_key=key)
    finish(conn, booking_id, payment)
    return booking_id


def reconcile(conn):
    with conn.cursor(row_factory=dict_row) as cur:
        pending = cur.execute("SELECT * FROM bookings WHERE status = 'pending' ORDER BY id DESC").fetchall()
    done = 0
    for b in pending:
        p = stayhub.charge(conn, b["guest_id"], b["room_id"], b["nights"], idempotency_key=stayhub.checkout_key(b["id"]))
        done += finish(conn, b["id"], p)
    return done
