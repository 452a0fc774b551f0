# exercise: 12.checkout
# cell: ac4d5e5b
# rule: charge-first (the charge inside the transaction "so a failed insert rolls it back")
def checkout(conn, guest_id, room_id, nights):
    with conn.transaction():
        payment = stayhub.charge(conn, guest_id, room_id, nights)
        booking_id = stayhub.insert_booking(conn, guest_id, room_id, nights, payment)
        for job_type in stayhub.SIDE_JOBS:
            queue.enqueue(conn, job_type, {"booking_id": booking_id})
    return booking_id
