# exercise: 12.checkout
# cell: ac4d5e5b
# rule: correct (alias import, enqueue_many, transaction object named)
from course.programs.stayhub import charge as authorise_card, insert_booking as store_booking, SIDE_JOBS as KINDS


def checkout(conn, guest_id, room_id, nights):
    payment = authorise_card(conn, guest_id, room_id, nights)
    with conn.transaction() as tx:
        new_id = store_booking(conn, guest_id, room_id, nights, payment)
        for kind in KINDS:
            queue.enqueue_many(conn, kind, [{"booking_id": new_id}])
    return new_id
