# exercise: 12.checkout
# cell: ac4d5e5b
# rule: correct (module alias, a helper, return from inside the with block, payload built with dict())
import course.programs.stayhub as hotel
from course.core import queue as q


def _side_jobs(conn, booking_id):
    return [q.enqueue(conn, kind, dict(booking_id=booking_id)) for kind in hotel.SIDE_JOBS]


def checkout(conn, guest_id, room_id, nights):
    auth = hotel.charge(conn, guest_id=guest_id, room_id=room_id, nights=nights)
    transaction = conn.transaction()
    with transaction:
        new_booking = hotel.insert_booking(conn, guest_id, room_id, nights, payment=auth)
        _side_jobs(conn, new_booking)
        return new_booking
