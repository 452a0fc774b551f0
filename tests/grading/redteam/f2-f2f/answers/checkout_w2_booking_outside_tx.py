# exercise: 12.checkout
# expect: wrong
# rule: one-transaction: the booking is committed (autocommit) before the jobs' transaction
def checkout(conn, guest_id, room_id, nights):
    payment = stayhub.charge(conn, guest_id, room_id, nights)
    booking_id = stayhub.insert_booking(conn, guest_id, room_id, nights, payment)
    with conn.transaction():
        for kind in stayhub.SIDE_JOBS:
            queue.enqueue(conn, kind, {"booking_id": booking_id})
    return booking_id
