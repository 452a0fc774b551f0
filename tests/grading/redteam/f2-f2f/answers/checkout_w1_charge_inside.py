# exercise: 12.checkout
# expect: wrong
# rule: charge-first: the charge is made inside the transaction (transaction open during the 300 ms)
def checkout(conn, guest_id, room_id, nights):
    with conn.transaction():
        payment = stayhub.charge(conn, guest_id, room_id, nights)
        booking_id = stayhub.insert_booking(conn, guest_id, room_id, nights, payment)
        for kind in stayhub.SIDE_JOBS:
            queue.enqueue(conn, kind, {"booking_id": booking_id})
    return booking_id
