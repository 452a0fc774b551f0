# expect: pass correct: CTE update with rowcount; reconcile walks ids one at a time
def finish(conn, booking_id, payment):
    with conn.transaction():
        cur = conn.execute("WITH done AS (UPDATE bookings SET status = 'confirmed', payment_ref = %(ref)s "
                           "WHERE id = %(id)s AND status = 'pending' RETURNING id) SELECT id FROM done",
                           {"ref": payment.ref, "id": booking_id})
        if cur.rowcount != 1:
            return False
        queue.enqueue_many(conn, stayhub.SIDE_JOBS[0], [{"booking_id": booking_id}])
        queue.enqueue_many(conn, stayhub.SIDE_JOBS[1], [{"booking_id": booking_id}])
        queue.enqueue_many(conn, stayhub.SIDE_JOBS[2], [{"booking_id": booking_id}])
    return True

def safe_checkout(conn, guest_id, room_id, nights):
    booking_id = stayhub.insert_pending(conn, guest_id, room_id, nights)
    payment = stayhub.charge(conn, guest_id, room_id, nights, idempotency_key=stayhub.checkout_key(booking_id))
    finish(conn, booking_id, payment)
    return booking_id

def reconcile(conn):
    last = 0
    done = 0
    while True:
        row = conn.execute("SELECT id, guest_id, room_id, nights FROM bookings WHERE status = 'pending' AND id > %s "
                           "ORDER BY id LIMIT 1", [last]).fetchone()
        if row is None:
            return done
        last, guest_id, room_id, nights = row
        key = stayhub.checkout_key(last)
        done += bool(finish(conn, last, stayhub.charge(conn, guest_id, room_id, nights, idempotency_key=key)))
