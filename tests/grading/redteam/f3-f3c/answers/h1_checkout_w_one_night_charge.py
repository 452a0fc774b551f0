# exercise: 12.checkout
# cell: ac4d5e5b
# rule: charge / statement step 1 (charges one night whatever nights says: the demo books 1 night)
def checkout(conn, guest_id, room_id, nights):
    payment = stayhub.charge(conn, guest_id, room_id, 1)
    with conn.transaction():
        booking_id = stayhub.insert_booking(conn, guest_id, room_id, nights, payment)
        for job_type in stayhub.SIDE_JOBS:
            queue.enqueue(conn, job_type, {"booking_id": booking_id})
    return booking_id
