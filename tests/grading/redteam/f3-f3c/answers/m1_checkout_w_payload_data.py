# exercise: 12.checkout
# cell: ac4d5e5b
# rule: side-jobs ("ids, not data": the payload also carries the guest, the room and the total)
def checkout(conn, guest_id, room_id, nights):
    payment = stayhub.charge(conn, guest_id, room_id, nights)
    with conn.transaction():
        booking_id = stayhub.insert_booking(conn, guest_id, room_id, nights, payment)
        payload = {"booking_id": booking_id, "guest_id": guest_id, "room_id": room_id,
                   "total_cents": payment.total_cents}
        for job_type in stayhub.SIDE_JOBS:
            queue.enqueue(conn, job_type, payload)
    return booking_id
