# exercise: 12.checkout
# expect: wrong
# rule: one-transaction: jobs enqueued in their own transaction after the booking's, each committed alone
def checkout(conn, guest_id, room_id, nights):
    payment = stayhub.charge(conn, guest_id, room_id, nights)
    with conn.transaction():
        booking_id = stayhub.insert_booking(conn, guest_id, room_id, nights, payment)
    for kind in stayhub.SIDE_JOBS:
        with conn.transaction():
            queue.enqueue(conn, kind, {"booking_id": booking_id})
    return booking_id
