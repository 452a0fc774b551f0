# wrong (side-jobs: ids, not data): the payload carries the guest's data too, "to save the worker a query"
def checkout(conn, guest_id, room_id, nights):
    payment = stayhub.charge(conn, guest_id, room_id, nights)
    with conn.transaction():
        booking_id = stayhub.insert_booking(conn, guest_id, room_id, nights, payment)
        for job_type in stayhub.SIDE_JOBS:
            queue.enqueue(conn, job_type, {"booking_id": booking_id, "guest_id": guest_id, "room_id": room_id,
                                           "nights": nights, "total_cents": payment.total_cents})
    return booking_id
