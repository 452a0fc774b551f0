# expect: fail reconcile-all (correct only when nobody else is connected): reconcile stands aside when another session of the schema is active
def finish(conn, booking_id, payment):
    with conn.transaction():
        row = conn.execute("UPDATE bookings SET status = 'confirmed', payment_ref = %s "
                           "WHERE id = %s AND status = 'pending' RETURNING id", [payment.ref, booking_id]).fetchone()
        if row is None:
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
    busy = conn.execute("SELECT count(*) FROM pg_stat_activity WHERE state <> 'idle' AND pid <> pg_backend_pid() "
                        "AND datname = current_database() AND backend_type = 'client backend'").fetchone()[0]
    if busy:
        return 0   # a checkout is running: let it finish its own booking
    rows = conn.execute("SELECT id, guest_id, room_id, nights FROM bookings WHERE status = 'pending' ORDER BY id").fetchall()
    for booking_id, guest_id, room_id, nights in rows:
        payment = stayhub.charge(conn, guest_id, room_id, nights, idempotency_key=stayhub.checkout_key(booking_id))
        finish(conn, booking_id, payment)
