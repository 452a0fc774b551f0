# exercise: 12.checkout
# cell: ac4d5e5b
# rule: side-jobs (the id as a string in the payload: {"booking_id": "981"})
def checkout(conn, guest_id, room_id, nights):
    payment = stayhub.charge(conn, guest_id, room_id, nights)
    with conn.transaction():
        booking_id = stayhub.insert_booking(conn, guest_id, room_id, nights, payment)
        for job_type in stayhub.SIDE_JOBS:
            queue.enqueue(conn, job_type, {"booking_id": str(booking_id)})
    return booking_id
