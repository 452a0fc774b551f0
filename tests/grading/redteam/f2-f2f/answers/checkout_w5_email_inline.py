# exercise: 12.checkout
# expect: wrong
# rule: only-what-the-guest-waits-for: renders the invoice in the request (and still enqueues the jobs)
def checkout(conn, guest_id, room_id, nights):
    payment = stayhub.charge(conn, guest_id, room_id, nights)
    with conn.transaction():
        booking_id = stayhub.insert_booking(conn, guest_id, room_id, nights, payment)
        for kind in stayhub.SIDE_JOBS:
            queue.enqueue(conn, kind, {"booking_id": booking_id})
    stayhub.render_invoice_pdf(stayhub.booking(conn, booking_id))
    return booking_id
