# exercise: 12.checkout
# cell: ac4d5e5b
# rule: one-transaction (a job that cannot be stored is logged and skipped: the booking commits without it)
def checkout(conn, guest_id, room_id, nights):
    payment = stayhub.charge(conn, guest_id, room_id, nights)
    with conn.transaction():
        booking_id = stayhub.insert_booking(conn, guest_id, room_id, nights, payment)
        for job_type in stayhub.SIDE_JOBS:
            try:
                with conn.transaction():
                    queue.enqueue(conn, job_type, {"booking_id": booking_id})
            except Exception as error:
                print(f"could not enqueue {job_type} for booking {booking_id}: {error}")
    return booking_id
