# expect: fail one-transaction: an enqueue error swallowed, booking stored without jobs
def checkout(conn, guest_id, room_id, nights):
    payment = stayhub.charge(conn, guest_id, room_id, nights)
    with conn.transaction():
        booking_id = stayhub.insert_booking(conn, guest_id, room_id, nights, payment)
        for job_type in stayhub.SIDE_JOBS:
            try:
                with conn.transaction():
                    queue.enqueue(conn, job_type, {"booking_id": booking_id})
            except Exception as error:
                print("could not enqueue", job_type, error)
    return booking_id
