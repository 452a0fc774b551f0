# wrong (only-what-the-guest-waits-for): the invoice rendered in the request "so it is there at once", the rest as jobs
def checkout(conn, guest_id, room_id, nights):
    payment = stayhub.charge(conn, guest_id, room_id, nights)
    with conn.transaction():
        booking_id = stayhub.insert_booking(conn, guest_id, room_id, nights, payment)
        stayhub.store_invoice(conn, booking_id, stayhub.render_invoice_pdf(stayhub.booking(conn, booking_id)))
        for job_type in stayhub.SIDE_JOBS:
            if job_type != "render_invoice":
                queue.enqueue(conn, job_type, {"booking_id": booking_id})
    return booking_id
