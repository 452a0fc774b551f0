# exercise: 12.checkout
# expect: correct
# rule: correct: a helper function that enqueues, the transaction in a try/finally-free nested function, id returned from outer
def _store(conn, guest_id, room_id, nights, payment):
    with conn.transaction():
        booking_id = stayhub.insert_booking(conn, guest_id, room_id, nights, payment)
        ids = [queue.enqueue(conn, job_type, {"booking_id": booking_id}, max_attempts=8, notify=False)
               for job_type in stayhub.SIDE_JOBS]
        assert all(ids)
        return booking_id


def checkout(conn, guest_id, room_id, nights):
    return _store(conn, guest_id, room_id, nights, stayhub.charge(conn, guest_id, room_id, nights))
