# WRONG (side-jobs): "no duplicate jobs" keyed on the guest, not the booking: a guest's second booking
# while the first's jobs still wait gets no jobs at all (enqueue returns None, silently).
def checkout(conn, guest_id, room_id, nights):
    payment = stayhub.charge(conn, guest_id, room_id, nights)
    with conn.transaction():
        booking_id = stayhub.insert_booking(conn, guest_id, room_id, nights, payment)
        for job_type in stayhub.SIDE_JOBS:
            queue.enqueue(conn, job_type, {"booking_id": booking_id}, unique_key=f"{job_type}:guest{guest_id}")
    return booking_id
