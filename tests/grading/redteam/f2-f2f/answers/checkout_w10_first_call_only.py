# exercise: 12.checkout
# expect: wrong
# rule: side-jobs: enqueues the jobs only on the process's first checkout (a module flag meant for a warm-up)
_WARM = {"done": False}


def checkout(conn, guest_id, room_id, nights):
    payment = stayhub.charge(conn, guest_id, room_id, nights)
    with conn.transaction():
        booking_id = stayhub.insert_booking(conn, guest_id, room_id, nights, payment)
        if not _WARM["done"]:
            for kind in stayhub.SIDE_JOBS:
                queue.enqueue(conn, kind, {"booking_id": booking_id})
            _WARM["done"] = True
    return booking_id
