# wrong (one-transaction): a job that cannot be stored is logged and skipped (a savepoint each), "so a queue
# problem never loses a paid booking": the booking commits without its jobs
import logging


def checkout(conn, guest_id, room_id, nights):
    payment = stayhub.charge(conn, guest_id, room_id, nights)
    with conn.transaction():
        booking_id = stayhub.insert_booking(conn, guest_id, room_id, nights, payment)
        for job_type in stayhub.SIDE_JOBS:
            try:
                with conn.transaction():
                    queue.enqueue(conn, job_type, {"booking_id": booking_id})
            except Exception:
                logging.exception("could not enqueue %s for booking %s", job_type, booking_id)
    return booking_id
