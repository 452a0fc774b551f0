# WRONG (one-transaction): each job in its own savepoint, its failure swallowed "so the guest still
# gets Confirmed": when the jobs cannot be stored, the booking commits without them.
def checkout(conn, guest_id, room_id, nights):
    payment = stayhub.charge(conn, guest_id, room_id, nights)
    with conn.transaction():
        booking_id = stayhub.insert_booking(conn, guest_id, room_id, nights, payment)
        for job_type in stayhub.SIDE_JOBS:
            try:
                with conn.transaction():
                    queue.enqueue(conn, job_type, {"booking_id": booking_id})
            except Exception:
                pass  # the booking matters more than its email
    return booking_id
