# correct: the reference's shape, the charge through an alias
from course.programs.stayhub import charge as authorise, insert_booking as store_booking


def checkout(conn, guest_id, room_id, nights):
    payment = authorise(conn, guest_id, room_id, nights)
    with conn.transaction():
        booking_id = store_booking(conn, guest_id, room_id, nights, payment)
        for kind in stayhub.SIDE_JOBS:
            queue.enqueue(conn, kind, {"booking_id": booking_id})
    return booking_id
