# correct, unlike the obvious: finish is ONE statement (an UPDATE ... RETURNING feeding an INSERT of the
# three jobs), so it is atomic without a transaction block; reconcile iterates a list of tuples.
FINISH = """
WITH confirmed AS (
    UPDATE bookings SET status = 'confirmed', payment_ref = %(ref)s
    WHERE id = %(id)s AND status = 'pending'
    RETURNING id
)
INSERT INTO jobs (type, payload)
SELECT kind, jsonb_build_object('booking_id', confirmed.id)
FROM confirmed CROSS JOIN unnest(%(kinds)s::text[]) AS kind
RETURNING id
"""


def finish(conn, booking_id, payment):
    rows = conn.execute(FINISH, {"ref": payment.ref, "id": booking_id, "kinds": list(stayhub.SIDE_JOBS)}).fetchall()
    return bool(rows)


def safe_checkout(conn, guest_id, room_id, nights):
    booking_id = stayhub.insert_pending(conn, guest_id, room_id, nights)
    payment = stayhub.charge(conn, guest_id, room_id, nights, idempotency_key=stayhub.checkout_key(booking_id))
    finish(conn, booking_id, payment)
    return booking_id


def reconcile(conn):
    pending = conn.execute("SELECT id, guest_id, room_id, nights FROM bookings WHERE status = 'pending'").fetchall()
    done = [finish(conn, b, stayhub.charge(conn, g, r, n, idempotency_key=stayhub.checkout_key(b)))
            for b, g, r, n in pending]
    return sum(done)
