# expect: fail charge-first: charged twice (a 'retry' when the first ref looks odd)
def checkout(conn, guest_id, room_id, nights):
    payment = stayhub.charge(conn, guest_id, room_id, nights)
    if not payment.ref.startswith("auth_") or payment.total_cents > 0:
        payment = stayhub.charge(conn, guest_id, room_id, nights)  # re-authorise to get a fresh hold
    with conn.transaction():
        booking_id = stayhub.insert_booking(conn, guest_id, room_id, nights, payment)
        for job_type in stayhub.SIDE_JOBS:
            queue.enqueue(conn, job_type, {"booking_id": booking_id})
    return booking_id
