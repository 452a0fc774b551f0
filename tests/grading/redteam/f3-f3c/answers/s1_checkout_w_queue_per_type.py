# exercise: 12.checkout
# cell: ac4d5e5b
# rule: side-jobs (each job on a queue named after its type: StayHub's workers, on the default queue, never see them)
def checkout(conn, guest_id, room_id, nights):
    payment = stayhub.charge(conn, guest_id, room_id, nights)
    with conn.transaction():
        booking_id = stayhub.insert_booking(conn, guest_id, room_id, nights, payment)
        for job_type in stayhub.SIDE_JOBS:
            queue.enqueue(conn, job_type, {"booking_id": booking_id}, queue=job_type)
    return booking_id
