# exercise: 12.checkout
# cell: ac4d5e5b
# rule: return-id / side-jobs (the id read back with max(id): another checkout committing in between gets the jobs)
def checkout(conn, guest_id, room_id, nights):
    payment = stayhub.charge(conn, guest_id, room_id, nights)
    with conn.transaction():
        stayhub.insert_booking(conn, guest_id, room_id, nights, payment)
        booking_id = conn.execute("SELECT max(id) FROM bookings").fetchone()[0]
        for job_type in stayhub.SIDE_JOBS:
            queue.enqueue(conn, job_type, {"booking_id": booking_id})
    return booking_id
