# exercise: 12.checkout
# expect: wrong
# rule: one-transaction: a failed enqueue is swallowed per job, so the booking commits without (some of) its jobs
def checkout(conn, guest_id, room_id, nights):
    payment = stayhub.charge(conn, guest_id, room_id, nights)
    with conn.transaction():
        booking_id = stayhub.insert_booking(conn, guest_id, room_id, nights, payment)
        for kind in stayhub.SIDE_JOBS:
            try:
                with conn.transaction():
                    queue.enqueue(conn, kind, {"booking_id": booking_id})
            except Exception:
                pass
    return booking_id
