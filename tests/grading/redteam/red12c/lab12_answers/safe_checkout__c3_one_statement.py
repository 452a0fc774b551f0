# correct: step 3 as one statement (a CTE confirms, the INSERT enqueues only what it confirmed)
FINISH = """
WITH confirmed AS (
    UPDATE bookings SET status = 'confirmed', payment_ref = %(ref)s
    WHERE id = %(id)s AND status = 'pending'
    RETURNING id
)
INSERT INTO jobs (type, payload, max_attempts)
SELECT t.type, jsonb_build_object('booking_id', confirmed.id), 8
FROM confirmed CROSS JOIN unnest(%(types)s::text[]) AS t(type)
"""


def finish(conn, booking_id, payment):
    conn.execute(FINISH, {"ref": payment.ref, "id": booking_id, "types": list(stayhub.SIDE_JOBS)})


def safe_checkout(conn, guest_id, room_id, nights):
    booking_id = stayhub.insert_pending(conn, guest_id, room_id, nights)
    finish(conn, booking_id, stayhub.charge(conn, guest_id, room_id, nights,
                                            idempotency_key=stayhub.checkout_key(booking_id)))
    return booking_id


def reconcile(conn):
    with conn.cursor() as cur:
        pending = cur.execute("SELECT id, guest_id, room_id, nights FROM bookings WHERE status = %s",
                              ["pending"]).fetchall()
    for booking_id, guest_id, room_id, nights in pending:
        finish(conn, booking_id, stayhub.charge(conn, guest_id, room_id, nights,
                                                idempotency_key=stayhub.checkout_key(booking_id)))
    return len(pending)
