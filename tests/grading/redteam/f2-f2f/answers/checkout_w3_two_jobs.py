# exercise: 12.checkout
# expect: wrong
# rule: side-jobs: forgets the channel-manager sync (only the first two side jobs)
def checkout(conn, guest_id, room_id, nights):
    payment = stayhub.charge(conn, guest_id, room_id, nights)
    with conn.transaction():
        booking_id = stayhub.insert_booking(conn, guest_id, room_id, nights, payment)
        for kind in stayhub.SIDE_JOBS[:-1]:
            queue.enqueue(conn, kind, {"booking_id": booking_id})
    return booking_id
