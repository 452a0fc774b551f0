# correct, unlike the obvious: aliased imports, the id read back with currval() (session-local, so
# another checkout's commit cannot change it), the jobs stored with enqueue_many one type at a time.
from course.programs.stayhub import charge as authorise, insert_booking as store_booking, SIDE_JOBS
from course.core.queue import enqueue_many


def checkout(conn, guest_id, room_id, nights):
    """Charge the card; store the booking and its three jobs in one transaction; return the booking's id."""
    payment = authorise(conn, guest_id, room_id, nights)
    with conn.transaction():
        store_booking(conn, guest_id, room_id, nights, payment)
        (booking_id,) = conn.execute("SELECT currval(pg_get_serial_sequence('bookings', 'id'))").fetchone()
        for kind in SIDE_JOBS:
            enqueue_many(conn, kind, [{"booking_id": booking_id}])
    return booking_id
