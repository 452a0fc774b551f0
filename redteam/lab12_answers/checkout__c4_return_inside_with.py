# expect: pass correct: returns inside the transaction block, jobs in reverse order, no notify
def checkout(conn, guest_id, room_id, nights):
    payment = stayhub.charge(conn, guest_id, room_id, nights)
    with conn.transaction():
        booking_id = stayhub.insert_booking(conn, guest_id, room_id, nights, payment)
        [queue.enqueue(conn, t, {"booking_id": booking_id}, notify=(t == stayhub.SIDE_JOBS[0])) for t in reversed(stayhub.SIDE_JOBS)]
        return booking_id
