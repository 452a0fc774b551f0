# expect: pass correct: enqueue_many per type, max_attempts 8
def checkout(conn, guest_id, room_id, nights):
    payment = stayhub.charge(conn, guest_id, room_id, nights)
    with conn.transaction():
        new_id = stayhub.insert_booking(conn, guest_id, room_id, nights, payment)
        for kind in stayhub.SIDE_JOBS:
            queue.enqueue_many(conn, kind, [dict(booking_id=new_id)], max_attempts=stayhub.MAX_ATTEMPTS)
    return new_id
