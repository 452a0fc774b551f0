# exercise: 12.checkout
# expect: wrong
# rule: side-jobs: payload carries data (guest, room, nights) besides the id
def checkout(conn, guest_id, room_id, nights):
    payment = stayhub.charge(conn, guest_id, room_id, nights)
    with conn.transaction():
        booking_id = stayhub.insert_booking(conn, guest_id, room_id, nights, payment)
        for kind in stayhub.SIDE_JOBS:
            queue.enqueue(conn, kind, {"booking_id": booking_id, "guest_id": guest_id, "nights": nights,
                                       "total_cents": payment.total_cents})
    return booking_id
