# exercise: 12.checkout
# cell: ac4d5e5b
# rule: only-what-the-guest-waits-for (renders the invoice PDF in the request "so it is ready", 1.5 s)
def checkout(conn, guest_id, room_id, nights):
    payment = stayhub.charge(conn, guest_id, room_id, nights)
    with conn.transaction():
        booking_id = stayhub.insert_booking(conn, guest_id, room_id, nights, payment)
        for job_type in stayhub.SIDE_JOBS:
            queue.enqueue(conn, job_type, {"booking_id": booking_id})
    stayhub.render_invoice_pdf(stayhub.booking(conn, booking_id))  # warm the renderer's cache
    return booking_id
