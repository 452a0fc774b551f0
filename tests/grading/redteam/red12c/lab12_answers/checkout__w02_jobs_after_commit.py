# wrong (one-transaction): the booking commits on its own (autocommit), then the jobs
def checkout(conn, guest_id, room_id, nights):
    payment = stayhub.charge(conn, guest_id, room_id, nights)
    booking_id = stayhub.insert_booking(conn, guest_id, room_id, nights, payment)
    with conn.transaction():
        for job_type in stayhub.SIDE_JOBS:
            queue.enqueue(conn, job_type, {"booking_id": booking_id})
    return booking_id
