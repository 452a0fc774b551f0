# exercise: 12.checkout
# cell: ac4d5e5b
# rule: side-jobs (unique_key = the job type: from the second booking on, while the first's jobs wait, no job is stored)
def checkout(conn, guest_id, room_id, nights):
    payment = stayhub.charge(conn, guest_id, room_id, nights)
    with conn.transaction():
        booking_id = stayhub.insert_booking(conn, guest_id, room_id, nights, payment)
        for job_type in stayhub.SIDE_JOBS:
            queue.enqueue(conn, job_type, {"booking_id": booking_id}, unique_key=job_type)
    return booking_id
