# wrong (only-what-the-guest-waits-for): the confirmation email's booking is read and the email job is
# made to run at once by sleeping until a worker has it ("the guest wants the email before the page")
def checkout(conn, guest_id, room_id, nights):
    payment = stayhub.charge(conn, guest_id, room_id, nights)
    with conn.transaction():
        booking_id = stayhub.insert_booking(conn, guest_id, room_id, nights, payment)
        for job_type in stayhub.SIDE_JOBS:
            queue.enqueue(conn, job_type, {"booking_id": booking_id})
    time.sleep(stayhub.EMAIL_S + stayhub.INVOICE_S)
    return booking_id
