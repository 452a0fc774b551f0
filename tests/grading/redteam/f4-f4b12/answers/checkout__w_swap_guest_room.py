# WRONG (whole-stay): guest and room swapped in the charge call (positional slip); right whenever the
# guest's id equals the room's, and the price is the wrong room's otherwise.
def checkout(conn, guest_id, room_id, nights):
    payment = stayhub.charge(conn, room_id, guest_id, nights)
    with conn.transaction():
        booking_id = stayhub.insert_booking(conn, guest_id, room_id, nights, payment)
        for job_type in stayhub.SIDE_JOBS:
            queue.enqueue(conn, job_type, {"booking_id": booking_id})
    return booking_id
