# exercise: 12.checkout
# expect: correct
# rule: correct: enqueue_many per type inside the transaction, reversed type order, max_attempts from stayhub
def checkout(conn, guest_id, room_id, nights):
    payment = stayhub.charge(conn, guest_id, room_id, nights)
    with conn.transaction() as tx:
        booking_id = stayhub.insert_booking(conn, guest_id, room_id, nights, payment)
        for kind in reversed(stayhub.SIDE_JOBS):
            queue.enqueue_many(conn, kind, [dict(booking_id=booking_id)], max_attempts=stayhub.MAX_ATTEMPTS)
    return int(booking_id)
