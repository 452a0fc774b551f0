# exercise: 12.checkout
# expect: wrong
# rule: only-what-the-guest-waits-for: sleeps 1.5 s in the request ("wait for the invoice"), after the commit
def checkout(conn, guest_id, room_id, nights):
    payment = stayhub.charge(conn, guest_id, room_id, nights)
    with conn.transaction():
        booking_id = stayhub.insert_booking(conn, guest_id, room_id, nights, payment)
        for kind in stayhub.SIDE_JOBS:
            queue.enqueue(conn, kind, {"booking_id": booking_id})
    time.sleep(1.5)  # "wait for the invoice" as the old code did
    return booking_id
