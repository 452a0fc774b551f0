# exercise: 12.checkout
# cell: ac4d5e5b
# rule: correct (the statement's steps word for word, max_attempts as the plan says)
def checkout(conn, guest_id, room_id, nights):
    """Charge the card; store the booking and its three jobs in one transaction; return the booking's id."""
    payment = stayhub.charge(conn, guest_id, room_id, nights)
    with conn.transaction():
        booking_id = stayhub.insert_booking(conn, guest_id, room_id, nights, payment)
        for job_type in stayhub.SIDE_JOBS:
            queue.enqueue(conn, job_type, {"booking_id": booking_id}, max_attempts=stayhub.MAX_ATTEMPTS)
    return booking_id
