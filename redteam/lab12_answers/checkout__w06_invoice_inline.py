# expect: fail only-what-the-guest-waits-for: invoice rendered in the request
def checkout(conn, guest_id, room_id, nights):
    payment = stayhub.charge(conn, guest_id, room_id, nights)
    with conn.transaction():
        booking_id = stayhub.insert_booking(conn, guest_id, room_id, nights, payment)
        for job_type in stayhub.SIDE_JOBS:
            queue.enqueue(conn, job_type, {"booking_id": booking_id})
    stayhub.store_invoice(conn, booking_id, stayhub.render_invoice_pdf(stayhub.booking(conn, booking_id)))
    return booking_id
