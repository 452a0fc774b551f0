# WRONG (return-id), the obvious control: max(id) of bookings read after the commit: another checkout
# committing meanwhile makes it return that one.
def checkout(conn, guest_id, room_id, nights):
    payment = stayhub.charge(conn, guest_id, room_id, nights)
    with conn.transaction():
        booking_id = stayhub.insert_booking(conn, guest_id, room_id, nights, payment)
        for job_type in stayhub.SIDE_JOBS:
            queue.enqueue(conn, job_type, {"booking_id": booking_id})
    return conn.execute("SELECT max(id) FROM bookings").fetchone()[0]
