# exercise: 12.checkout
# expect: wrong
# rule: return-id: returns the payment reference instead of the booking id
def checkout(conn, guest_id, room_id, nights):
    payment = stayhub.charge(conn, guest_id, room_id, nights)
    with conn.transaction():
        booking_id = stayhub.insert_booking(conn, guest_id, room_id, nights, payment)
        for kind in stayhub.SIDE_JOBS:
            queue.enqueue(conn, kind, {"booking_id": booking_id})
    return payment.ref
