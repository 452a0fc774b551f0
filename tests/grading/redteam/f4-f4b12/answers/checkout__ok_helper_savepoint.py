# correct, unlike the obvious: a helper that enqueues, a transaction object named, the id kept in a dict
import functools


def _enqueue_side_jobs(conn, booking_id):
    return [queue.enqueue(conn, kind, payload={"booking_id": booking_id}, max_attempts=stayhub.MAX_ATTEMPTS)
            for kind in stayhub.SIDE_JOBS]


def checkout(conn, guest_id, room_id, nights):
    """Charge the card; store the booking and its three jobs in one transaction; return the booking's id."""
    pay = functools.partial(stayhub.charge, conn)
    payment = pay(guest_id, room_id, nights)
    result = {}
    with conn.transaction() as tx:
        result["id"] = stayhub.insert_booking(conn, guest_id, room_id, nights, payment)
        ids = _enqueue_side_jobs(conn, result["id"])
        assert len(ids) == 3, tx
    return result["id"]
